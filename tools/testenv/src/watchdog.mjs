// k-testenv watchdog: a tiny detached process that kills a control plane's processes when the
// process that started them disappears, SIGKILL included (nothing runs in a SIGKILLed process, so
// the cleanup has to live in another one). Plain JavaScript so it starts with bare `node`, fast.
//
// Usage: node watchdog.mjs <dir>   (a control plane's run dir, or a build's temporary dir)
// stdin: a pipe from the parent carrying JSON lines: {"pid":123} to watch a process, {"done":true}
// when the parent stopped everything itself. EOF without "done" means the parent died: the pipe's
// write end closes with the parent (it is close-on-exec, so no other process holds it).
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { setInterval, setTimeout } from 'node:timers';

const runDir = process.argv[2];
// It deletes this directory: refuse anything that is not an absolute path at least two levels deep.
if (!runDir || !runDir.startsWith('/') || runDir.split('/').filter(Boolean).length < 2) {
  console.error('watchdog: expected an absolute run directory at least two levels deep');
  process.exit(2);
}
const parentPid = process.ppid;
const pids = new Set();
let done = false;
let cleaning = false;
let buffered = '';

// Detached in its own session already; ignore terminal-style signals anyway so a broadcast does not
// take the watchdog down before it has cleaned up.
for (const signal of ['SIGINT', 'SIGHUP', 'SIGPIPE']) process.on(signal, () => {});

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  const lines = buffered.split('\n');
  buffered = lines.pop() ?? '';
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const message = JSON.parse(line);
      if (typeof message.pid === 'number') pids.add(message.pid);
      if (message.done === true) done = true;
    } catch {
      // Ignore garbage; the parent only writes JSON.
    }
  }
  if (done) process.exit(0);
});
process.stdin.on('end', () => void cleanup());
process.stdin.on('error', () => void cleanup());
// Belt and braces: if the parent is gone but the pipe somehow stays open, notice the re-parenting.
// Give the pipe a moment first: a parent that disarmed and exited at once may still have its "done"
// in flight, and that must win.
let orphanedAt;
setInterval(() => {
  if (process.ppid === parentPid) return;
  orphanedAt ??= Date.now();
  if (Date.now() - orphanedAt >= 2000) void cleanup();
}, 500);

// Every control-plane process has a path inside the run directory in its arguments; the trailing
// slash keeps /tmp/k-testenv-abc from matching /tmp/k-testenv-abcd.
const marker = `${runDir.replace(/\/+$/, '')}/`;
// Processes started for the run carry the run directory in their environment: vitest's workers
// (the global setup sets it before they start) and the command of `k-envtest run`. Only these
// exact entries count: a kubeconfig variable also names the run dir, but users export it in
// shells and editors that must survive.
const runDirEntries = ['K_ENVTEST_RUN_DIR', 'K_TESTENV_RUN_DIR'].map(
  (name) => `${name}=${runDir.replace(/\/+$/, '')}`,
);

/** startedForTheRun is true when the environment a process started with names the run dir. */
function startedForTheRun(pid) {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return entries.some((entry) => runDirEntries.includes(entry));
}

/**
 * A process is ours if it is alive and its command line names a path in the run directory, it
 * works inside it (a `go mod tidy` of a build), or it was started for the run.
 */
function isOurs(pid) {
  try {
    if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) return true;
    if (`${readlinkSync(`/proc/${pid}/cwd`)}/`.startsWith(marker)) return true;
    return startedForTheRun(pid);
  } catch {
    return false;
  }
}

/** Every process that is ours by {@link isOurs} (catches a pid never reported). */
function scanOurs() {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (Number.isInteger(pid) && pid !== process.pid && isOurs(pid)) found.push(pid);
  }
  return found;
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

async function cleanup() {
  if (done || cleaning) return;
  cleaning = true;
  const targets = new Set([...pids].filter(isOurs));
  for (const pid of scanOurs()) targets.add(pid);
  for (const pid of targets) signal(pid, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && [...targets].some(isOurs))
    await new Promise((r) => setTimeout(r, 100));
  for (const pid of targets) if (isOurs(pid)) signal(pid, 'SIGKILL');
  for (const pid of scanOurs()) signal(pid, 'SIGKILL');
  await new Promise((r) => setTimeout(r, 200));
  try {
    rmSync(runDir, { recursive: true, force: true });
  } catch {
    // Best effort: a leftover directory in tmp is harmless, a leftover process is not.
  }
  process.exit(0);
}
