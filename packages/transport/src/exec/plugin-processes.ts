/**
 * plugin-processes keeps the plugins that are running, so that none outlives this process: they
 * are killed (SIGKILL, the only signal sure to end them; a dying process has no time for a grace
 * period) when this process exits (`exit` event) and when it is killed by SIGINT, SIGTERM or
 * SIGHUP, which skip `exit`. The listeners are installed only while a plugin runs.
 *
 * The signal listeners do not change what the program does on a signal:
 * - when nothing else listens for it (Node's default is to die by it), they kill the plugins,
 *   remove themselves and raise the signal again, so the process still dies by that signal
 *   (its exit status says so);
 * - when the program has its own listener, they do nothing: the program decides whether and
 *   when to exit (through `process.exit`, which runs the `exit` hook, or by closing its
 *   transports, which kills their plugins).
 * Listeners of other copies of this package (a second version, or the CommonJS and ESM builds
 * in one process) carry the same brand and count as ours: each kills its own plugins and the
 * last to go raises the signal.
 */

const SIGNALS: readonly NodeJS.Signals[] =
  process.platform === 'win32' ? [] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
const LISTENER_BRAND = Symbol.for('@k/transport.execPluginSignalListener');

/** Kill targets: a negative number is a process group (`-pgid`), a positive one a process. */
const running = new Set<number>();
let installed = false;

function killAll(): void {
  for (const target of running) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

const onExit = (): void => killAll();

const signalListeners = new Map<NodeJS.Signals, () => void>(
  SIGNALS.map((signal) => {
    const listener = () => onSignal(signal);
    Object.defineProperty(listener, LISTENER_BRAND, { value: true });
    return [signal, listener];
  }),
);

function isBranded(listener: unknown): boolean {
  return typeof listener === 'function' && LISTENER_BRAND in listener;
}

function onSignal(signal: NodeJS.Signals): void {
  // Someone else handles this signal: the program keeps control of its exit.
  if (process.listeners(signal).some((listener) => !isBranded(listener))) return;
  killAll();
  running.clear();
  uninstall();
  // Another copy's listener may still be in line; the last one raises the signal.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', onExit);
  for (const [signal, listener] of signalListeners) process.on(signal, listener);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', onExit);
  for (const [signal, listener] of signalListeners) process.off(signal, listener);
}

/**
 * trackPluginProcess records a running plugin — `-pgid` for a plugin in its own process group,
 * its pid otherwise — until the returned function is called (idempotent), when it has ended.
 */
export function trackPluginProcess(target: number): () => void {
  running.add(target);
  install();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    running.delete(target);
    if (running.size === 0) uninstall();
  };
}
