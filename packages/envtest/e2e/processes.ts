// What the runner, CLI and lifetime tests need to look at processes: /proc (Linux, as the
// watchdog), and children started as a user's terminal starts them.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveCacheRoot } from '@k/testenv';
import { userEnvironment } from '@k/test-utils';

/** K_ENVTEST_BIN is the `k-envtest` executable of the workspace (it runs src/ through tsx). */
export const K_ENVTEST_BIN = fileURLToPath(new URL('../bin/k-envtest.mjs', import.meta.url));

/** TSX_LOADER is tsx's loader, for `--import` wherever the child runs. */
const TSX_LOADER = createRequire(import.meta.url).resolve('tsx');

/** VITEST_BIN is the workspace's vitest command. */
export const VITEST_BIN = fileURLToPath(
  new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url),
);

/**
 * childEnvironment is a user's environment for a child runner: the workspace's warm cache as the
 * public cache (no build), workspace packages from source (`@k/source`, through tsx), and nothing
 * of the outer run's plane (K_ENVTEST_KUBECONFIG would make the child reuse it). `K_ENVTEST_RUN_DIR`
 * stays: should the outer run die, its watchdog ends these children too.
 */
export function childEnvironment(
  extra: Readonly<Record<string, string | undefined>> = {},
): NodeJS.ProcessEnv {
  const env = userEnvironment();
  for (const name of ['K_ENVTEST_KUBECONFIG', 'K_TESTENV_KUBECONFIG', 'KUBEBUILDER_ASSETS']) {
    delete env[name];
  }
  env.K_ENVTEST_CACHE = resolveCacheRoot();
  env.NODE_OPTIONS = `--import=${TSX_LOADER} --conditions=@k/source`;
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Started is a child process whose output is collected. */
export interface Started {
  readonly child: ChildProcess;
  readonly output: () => { stdout: string; stderr: string };
  /**
   * exited resolves with the exit code, or 128 + n when signal n ended it, once its output is
   * closed too (a process it left holding the pipes delays this: see `ended`).
   */
  readonly exited: Promise<{ code: number; stdout: string; stderr: string }>;
  /** ended resolves when the process itself has exited. */
  readonly ended: Promise<void>;
}

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** start starts `command` in `cwd` with `env`, killing it with SIGKILL after `timeoutMs`. */
export function start(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Started {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  const exited = new Promise<{ code: number; stdout: string; stderr: string }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        resolve({
          code: signal ? 128 + (SIGNAL_NUMBERS[signal] ?? 0) : (code ?? 1),
          stdout,
          stderr,
        });
      });
    },
  );
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, output: () => ({ stdout, stderr }), exited, ended };
}

function readProc(pid: string, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined; // exited while we looked, or not ours to read
  }
}

/**
 * processesMentioning lists the live processes (not this one) whose command line or starting
 * environment contains `text`: what the watchdog ends.
 */
export function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid || !isAlive(Number(entry))) continue;
    if (readProc(entry, 'cmdline')?.includes(text) || readProc(entry, 'environ')?.includes(text)) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

/** isAlive is true while a process with this pid exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const stat = readProc(String(pid), 'stat');
  return stat !== undefined && !/\) Z /.test(stat);
}

/** descendantsOf lists the live descendants of `pid`, from the parent links in /proc/<pid>/stat. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(entry, 'stat');
    if (!stat) continue;
    // The fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') continue;
    const parent = Number(fields[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const pending = [...(children.get(pid) ?? [])];
  while (pending.length > 0) {
    const next = pending.pop()!;
    found.push(next);
    pending.push(...(children.get(next) ?? []));
  }
  return found;
}

/** waitUntil polls `condition` every 100 ms until it holds (true) or `timeoutMs` passes (false). */
export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(100);
  }
  return condition();
}

/** reportLines reads the JSON lines a fixture wrote with `report()`. */
export function reportLines(path: string): Record<string, unknown>[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
