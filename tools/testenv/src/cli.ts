import { fork } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { isProcessAlive } from './build-lock.js';
import { ensureBinaries } from './build.js';
import { readControlPlaneState } from './connection.js';
import { DEFAULT_NODES, startControlPlane } from './control-plane.js';
import { ControlPlaneError } from './errors.js';
import { kubeRequest } from './kube-request.js';
import { stderrProgress } from './progress.js';
import { KUBECONFIG_ENV } from './test-namespace.js';

const USAGE = `usage: k-testenv <command> [options]

commands:
  build [--force]   build (or verify) kube-apiserver, kube-controller-manager, kube-scheduler, etcd
                    and kwok in the cache
  up                start a control plane in the background and print its kubeconfig path
  down              stop the control plane started by \`up\`
  status            say whether the \`up\` control plane is running

options:
  --state-file=PATH          where \`up\` records the running control plane (default: $K_TESTENV_STATE
                             or <tmpdir>/k-testenv-up-<uid>.json)
  --apiserver-flag=FLAG      extra kube-apiserver flag for \`up\` (repeatable)
  --controller-manager-flag=FLAG  extra kube-controller-manager flag for \`up\` (repeatable)
  --no-controller-manager    \`up\` without kube-controller-manager
  --no-scheduler             \`up\` without kube-scheduler
  --nodes=N                  fake nodes kwok simulates for \`up\` (default 2; 0 = no kwok)

environment:
  K_TESTENV_CACHE            cache root (default $XDG_CACHE_HOME/k-testenv or ~/.cache/k-testenv)
  K_TESTENV_KUBECONFIG       tests reuse the control plane of this kubeconfig instead of starting one
`;

const LAUNCHER = fileURLToPath(new URL('../bin/k-testenv.mjs', import.meta.url));

/** UpState is what `k-testenv up` records in its state file. */
interface UpState {
  readonly servePid: number;
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly logPath: string;
}

interface ParsedArguments {
  readonly command: string | undefined;
  readonly flags: Map<string, string[]>;
}

function parseArguments(argv: readonly string[]): ParsedArguments {
  const flags = new Map<string, string[]>();
  let command: string | undefined;
  for (const argument of argv) {
    const match = /^--([^=]+)(?:=(.*))?$/.exec(argument);
    if (match) {
      const values = flags.get(match[1] as string) ?? [];
      values.push(match[2] ?? 'true');
      flags.set(match[1] as string, values);
    } else if (command === undefined) {
      command = argument;
    } else {
      throw new ControlPlaneError('INVALID_OPTIONS', `unexpected argument ${argument}`);
    }
  }
  return { command, flags };
}

/** nodeCount reads `--nodes=N` (default {@link DEFAULT_NODES}). */
function nodeCount(flags: Map<string, string[]>): number {
  const value = flags.get('nodes')?.at(-1);
  if (value === undefined) return DEFAULT_NODES;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0)
    throw new ControlPlaneError('INVALID_OPTIONS', `--nodes needs a count, got ${value}`);
  return count;
}

/** defaultStateFile is where `up` records its control plane unless told otherwise. */
export function defaultStateFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.K_TESTENV_STATE ?? join(tmpdir(), `k-testenv-up-${process.getuid?.() ?? 'user'}.json`);
}

function readUpState(path: string): UpState | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as UpState;
  } catch {
    return undefined;
  }
}

/**
 * main runs the k-testenv CLI with `argv` (without node and script) and resolves with the exit code.
 * Errors are printed on stderr; a ControlPlaneError's code is printed with them.
 */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    const { command, flags } = parseArguments(argv);
    const stateFile = flags.get('state-file')?.[0] ?? defaultStateFile();
    switch (command) {
      case 'build': {
        const binaries = await ensureBinaries({
          onProgress: stderrProgress,
          force: flags.has('force'),
        });
        process.stdout.write(`${join(binaries.entryDir, 'bin')}\n`);
        return 0;
      }
      case 'up':
        return await up(stateFile, flags);
      case 'serve':
        return await serve(stateFile, flags);
      case 'down':
        return await down(stateFile);
      case 'status':
        return await status(stateFile);
      case undefined:
      case 'help':
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`k-testenv: unknown command ${command}\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (ControlPlaneError.isInstance(error)) {
      process.stderr.write(`k-testenv: ${error.message} [${error.code}]\n`);
    } else {
      process.stderr.write(`k-testenv: ${(error as Error).stack ?? String(error)}\n`);
    }
    return 1;
  }
}

async function up(stateFile: string, flags: Map<string, string[]>): Promise<number> {
  const existing = readUpState(stateFile);
  if (existing && isProcessAlive(existing.servePid)) {
    process.stderr.write(
      `[k-testenv] already up (pid ${existing.servePid}) at ${existing.server}\n`,
    );
    process.stdout.write(`${existing.kubeconfigPath}\n`);
    return 0;
  }
  // Build in the foreground, so progress shows here and `serve` only verifies.
  await ensureBinaries({ onProgress: stderrProgress, kwok: nodeCount(flags) > 0 });
  const logPath = stateFile.replace(/\.json$/, '') + '.log';
  const log = openSync(logPath, 'w');
  const serveArguments = [
    'serve',
    `--state-file=${stateFile}`,
    ...[...flags]
      .filter(([key]) => key !== 'state-file')
      .flatMap(([key, values]) => values.map((value) => `--${key}=${value}`)),
  ];
  // Its own session: the control plane must outlive this command and the terminal's signals.
  const child = fork(LAUNCHER, serveArguments, {
    detached: true,
    execArgv: [],
    stdio: ['ignore', log, log, 'ipc'],
  });
  closeSync(log);
  const message = await new Promise<{ ok: boolean; kubeconfigPath?: string; error?: string }>(
    (resolve) => {
      child.once('message', (value) => resolve(value as { ok: boolean }));
      child.once('exit', (code) =>
        resolve({
          ok: false,
          error: `the background process exited with code ${code}; see ${logPath}`,
        }),
      );
    },
  );
  if (child.connected) child.disconnect();
  child.unref();
  if (!message.ok || !message.kubeconfigPath) {
    process.stderr.write(`k-testenv: up failed: ${message.error ?? 'unknown error'}\n`);
    return 1;
  }
  process.stderr.write(
    `[k-testenv] up; stop with \`k-testenv down\`. For tests: export ${KUBECONFIG_ENV}=${message.kubeconfigPath}\n`,
  );
  process.stdout.write(`${message.kubeconfigPath}\n`);
  return 0;
}

async function serve(stateFile: string, flags: Map<string, string[]>): Promise<number> {
  const report = (value: object) => process.send?.(value);
  let controlPlane;
  try {
    controlPlane = await startControlPlane({
      onProgress: stderrProgress,
      build: false,
      controllerManager: !flags.has('no-controller-manager'),
      scheduler: !flags.has('no-scheduler'),
      nodes: nodeCount(flags),
      extraApiServerFlags: flags.get('apiserver-flag') ?? [],
      extraControllerManagerFlags: flags.get('controller-manager-flag') ?? [],
    });
  } catch (error) {
    report({ ok: false, error: (error as Error).message });
    throw error;
  }
  const state: UpState = {
    servePid: process.pid,
    kubeconfigPath: controlPlane.kubeconfigPath,
    server: controlPlane.server,
    logPath: stateFile.replace(/\.json$/, '') + '.log',
  };
  await writeFile(stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  report({ ok: true, kubeconfigPath: controlPlane.kubeconfigPath });
  process.disconnect?.();
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
      process.once(signal, () => resolve());
    // Keep the event loop alive while the control plane runs.
    setInterval(() => {}, 1 << 30);
  });
  process.stderr.write('[k-testenv] stopping\n');
  await controlPlane.stop();
  await rm(stateFile, { force: true });
  process.exit(0);
}

async function down(stateFile: string): Promise<number> {
  const state = readUpState(stateFile);
  if (!state) {
    process.stderr.write(`[k-testenv] nothing is up (no ${stateFile})\n`);
    return 0;
  }
  if (isProcessAlive(state.servePid)) {
    process.kill(state.servePid, 'SIGTERM');
    const deadline = Date.now() + 30_000;
    while (isProcessAlive(state.servePid) && Date.now() < deadline) await sleep(100);
    // Its watchdog cleans up after a SIGKILL.
    if (isProcessAlive(state.servePid)) process.kill(state.servePid, 'SIGKILL');
  }
  await rm(stateFile, { force: true });
  process.stderr.write(`[k-testenv] down\n`);
  return 0;
}

async function status(stateFile: string): Promise<number> {
  const state = readUpState(stateFile);
  if (!state || !isProcessAlive(state.servePid) || !existsSync(state.kubeconfigPath)) {
    process.stdout.write('down\n');
    return 3;
  }
  const connection = readControlPlaneState(state.kubeconfigPath);
  const ready = await kubeRequest({
    server: connection.server,
    path: '/readyz',
    caPem: connection.caPem,
    credentials: connection.users.admin,
  }).catch(() => undefined);
  process.stdout.write(
    `${ready?.status === 200 ? 'up' : 'not ready'} ${state.server} ${state.kubeconfigPath} (pid ${state.servePid})\n`,
  );
  return ready?.status === 200 ? 0 : 1;
}
