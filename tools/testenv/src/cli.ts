import { fork, spawn } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { assetsDirectory, resolveBinaries, type ResolveBinariesOptions } from './binary-sources.js';
import { isProcessAlive } from './build-lock.js';
import { ensureBinaries } from './build.js';
import { resolveCacheRoot } from './cache-layout.js';
import { readControlPlaneState } from './connection.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { ControlPlaneError } from './errors.js';
import { kubeRequest } from './kube-request.js';
import { stderrProgressAs, type ProgressSink } from './progress.js';

/**
 * CliIdentity is what makes one CLI of this implementation: `k-testenv` (the default) or
 * `k-envtest`. It names the tool in messages and progress lines, the script `up` forks, the cache
 * and the prefix of its environment variables (`<prefix>_KUBECONFIG`, `<prefix>_STATE`).
 */
export interface CliIdentity {
  /** e.g. `k-testenv`; also the prefix of progress lines and of the default state file. */
  readonly name: string;
  /** The absolute path of the executable script that runs this CLI (`up` forks it with `serve`). */
  readonly launcher: string;
  readonly cacheRoot: string;
  /** e.g. `K_TESTENV`. */
  readonly envPrefix: string;
  /**
   * Where `up` and `run` take binaries from unless `--binaries` says otherwise (default `'cache'`):
   * `'auto'` honours KUBEBUILDER_ASSETS and TEST_ASSET_*, as the library's default does.
   */
  readonly binaries?: 'auto' | 'cache' | undefined;
}

/** k-testenv's identity: this repository's private CLI, its cache and `K_TESTENV_*` variables. */
function testenvIdentity(): CliIdentity {
  return {
    name: 'k-testenv',
    launcher: fileURLToPath(new URL('../bin/k-testenv.mjs', import.meta.url)),
    cacheRoot: resolveCacheRoot(),
    envPrefix: 'K_TESTENV',
  };
}

function usage(cli: CliIdentity): string {
  const { name, envPrefix } = cli;
  return `usage: ${name} <command> [options]

commands:
  build [--force]        build (or verify) kube-apiserver, kube-controller-manager, kube-scheduler,
                         etcd and kwok in the cache; prints the bin directory
  up                     start a control plane in the background and print its kubeconfig path
  down                   stop the control plane started by \`up\`
  status                 say whether the \`up\` control plane is running (exit 3 when down)
  run [options] -- CMD…  start a control plane, run CMD with ${envPrefix}_KUBECONFIG and KUBECONFIG
                         set, stop the plane and exit with CMD's code (128+n when a signal ended it)
  assets                 print a directory in setup-envtest's layout (kube-apiserver, etcd,
                         kubectl) for KUBEBUILDER_ASSETS, linked to the cache

options (up, run):
  --binaries=auto|cache|DIR  where the binaries come from (default ${cli.binaries ?? 'cache'}; auto: KUBEBUILDER_ASSETS,
                             TEST_ASSET_*, then the cache)
  --apiserver-flag=FLAG      extra kube-apiserver flag (repeatable)
  --controller-manager-flag=FLAG  extra kube-controller-manager flag (repeatable)
  --no-controller-manager    without kube-controller-manager
  --no-scheduler             without kube-scheduler
  --nodes=N                  fake nodes kwok simulates (default 2 when there is kwok; 0 = no kwok)
  --state-file=PATH          where \`up\` records the running control plane (default:
                             $${envPrefix}_STATE or <tmpdir>/${name}-up-<uid>.json)

environment:
  ${envPrefix}_CACHE         cache root (now ${cli.cacheRoot})
  ${envPrefix}_KUBECONFIG    tests reuse the control plane of this kubeconfig instead of starting one
`;
}

/** UpState is what `up` records in its state file. */
interface UpState {
  readonly servePid: number;
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly logPath: string;
}

interface ParsedArguments {
  readonly command: string | undefined;
  readonly flags: Map<string, string[]>;
  /** What follows `--` (or the first argument after `run` that is not a flag). */
  readonly rest: readonly string[];
}

function parseArguments(argv: readonly string[]): ParsedArguments {
  const flags = new Map<string, string[]>();
  let command: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    const match = /^--([^=]+)(?:=(.*))?$/.exec(argument);
    if (argument === '--' || (command === 'run' && !match)) {
      return { command, flags, rest: argv.slice(argument === '--' ? index + 1 : index) };
    } else if (match) {
      const values = flags.get(match[1] as string) ?? [];
      values.push(match[2] ?? 'true');
      flags.set(match[1] as string, values);
    } else if (command === undefined) {
      command = argument;
    } else {
      throw new ControlPlaneError('INVALID_OPTIONS', `unexpected argument ${argument}`);
    }
  }
  return { command, flags, rest: [] };
}

/** nodeCount reads `--nodes=N` (undefined: the default for the binaries). */
function nodeCount(flags: Map<string, string[]>): number | undefined {
  const value = flags.get('nodes')?.at(-1);
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0)
    throw new ControlPlaneError('INVALID_OPTIONS', `--nodes needs a count, got ${value}`);
  return count;
}

/** defaultStateFile is where `up` records its control plane unless told otherwise. */
export function defaultStateFile(
  env: NodeJS.ProcessEnv = process.env,
  cli: Pick<CliIdentity, 'name' | 'envPrefix'> = { name: 'k-testenv', envPrefix: 'K_TESTENV' },
): string {
  return (
    env[`${cli.envPrefix}_STATE`] ??
    join(tmpdir(), `${cli.name}-up-${process.getuid?.() ?? 'user'}.json`)
  );
}

function readUpState(path: string): UpState | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as UpState;
  } catch {
    return undefined;
  }
}

/** Context is one invocation: who we are, its flags and where progress goes. */
interface Context {
  readonly cli: CliIdentity;
  readonly flags: Map<string, string[]>;
  readonly progress: ProgressSink;
}

/**
 * main runs the CLI with `argv` (without node and script) and resolves with the exit code; `cli`
 * says which CLI (default k-testenv). Errors are printed on stderr; a ControlPlaneError's code is
 * printed with them. `run` resolves with the command's exit code.
 */
export async function main(
  argv: readonly string[],
  cli: CliIdentity = testenvIdentity(),
): Promise<number> {
  try {
    const { command, flags, rest } = parseArguments(argv);
    const context: Context = { cli, flags, progress: stderrProgressAs(cli.name) };
    const stateFile = flags.get('state-file')?.[0] ?? defaultStateFile(process.env, cli);
    switch (command) {
      case 'build': {
        const binaries = await ensureBinaries({
          onProgress: context.progress,
          cacheRoot: cli.cacheRoot,
          buildCommand: `${cli.name} build`,
          force: flags.has('force'),
          // The moment to read every byte again (and renew the memo the starts rely on).
          verifyChecksums: true,
        });
        process.stdout.write(`${join(binaries.entryDir, 'bin')}\n`);
        return 0;
      }
      case 'up':
        return await up(context, stateFile);
      case 'serve':
        return await serve(context, stateFile);
      case 'down':
        return await down(context, stateFile);
      case 'status':
        return await status(stateFile);
      case 'run':
        return await run(context, rest);
      case 'assets':
        process.stdout.write(
          `${await assetsDirectory({ cacheRoot: cli.cacheRoot, onProgress: context.progress })}\n`,
        );
        return 0;
      case undefined:
      case 'help':
        process.stdout.write(usage(cli));
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`${cli.name}: unknown command ${command}\n${usage(cli)}`);
        return 2;
    }
  } catch (error) {
    if (ControlPlaneError.isInstance(error)) {
      process.stderr.write(`${cli.name}: ${error.message} [${error.code}]\n`);
    } else {
      process.stderr.write(`${cli.name}: ${(error as Error).stack ?? String(error)}\n`);
    }
    return 1;
  }
}

/** binariesOption reads `--binaries` (default the identity's, else 'cache'). */
function binariesOption({ cli, flags }: Context): ResolveBinariesOptions['binaries'] {
  const value = flags.get('binaries')?.at(-1) ?? cli.binaries ?? 'cache';
  return value === 'auto' || value === 'cache' ? value : { directory: value };
}

/**
 * startFromFlags resolves the binaries (building only when `build`) and starts a control plane
 * with the options of the flags.
 */
async function startFromFlags(context: Context, build: boolean): Promise<ControlPlane> {
  const { flags, cli, progress } = context;
  const nodes = nodeCount(flags);
  const binaries = await resolveBinaries({
    binaries: binariesOption(context),
    build,
    cacheRoot: cli.cacheRoot,
    kwok: nodes !== 0,
    onProgress: progress,
    buildCommand: `npx ${cli.name} build`,
  });
  return startControlPlane({
    binaries,
    onProgress: progress,
    controllerManager: flags.has('no-controller-manager') ? false : undefined,
    scheduler: flags.has('no-scheduler') ? false : undefined,
    nodes,
    extraApiServerFlags: flags.get('apiserver-flag') ?? [],
    extraControllerManagerFlags: flags.get('controller-manager-flag') ?? [],
  });
}

async function up(context: Context, stateFile: string): Promise<number> {
  const { cli, flags } = context;
  const existing = readUpState(stateFile);
  if (existing && isProcessAlive(existing.servePid)) {
    process.stderr.write(
      `[${cli.name}] already up (pid ${existing.servePid}) at ${existing.server}\n`,
    );
    process.stdout.write(`${existing.kubeconfigPath}\n`);
    return 0;
  }
  // Build in the foreground, so progress shows here and `serve` only verifies.
  const nodes = nodeCount(flags);
  await resolveBinaries({
    binaries: binariesOption(context),
    cacheRoot: cli.cacheRoot,
    kwok: nodes !== 0,
    onProgress: context.progress,
    buildCommand: `npx ${cli.name} build`,
  });
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
  const child = fork(cli.launcher, serveArguments, {
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
    process.stderr.write(`${cli.name}: up failed: ${message.error ?? 'unknown error'}\n`);
    return 1;
  }
  process.stderr.write(
    `[${cli.name}] up; stop with \`${cli.name} down\`. For tests: export ${cli.envPrefix}_KUBECONFIG=${message.kubeconfigPath}\n`,
  );
  process.stdout.write(`${message.kubeconfigPath}\n`);
  return 0;
}

async function serve(context: Context, stateFile: string): Promise<number> {
  const report = (value: object) => process.send?.(value);
  let controlPlane;
  try {
    controlPlane = await startFromFlags(context, false);
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
  process.stderr.write(`[${context.cli.name}] stopping\n`);
  await controlPlane.stop();
  await rm(stateFile, { force: true });
  process.exit(0);
}

/** The signals `run` passes on to its command (and then waits for the command to end). */
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * run starts a control plane, runs `command` with `<prefix>_KUBECONFIG`, `KUBECONFIG` and
 * `<prefix>_RUN_DIR` set, passes SIGINT, SIGTERM and SIGHUP on to it, stops the plane when it ends
 * and resolves with its exit code (128 + the signal's number when a signal ended it; 127 when it
 * could not be started). A signal while the plane starts ends this process as usual; the plane's
 * watchdog then removes what was started.
 */
async function run(context: Context, command: readonly string[]): Promise<number> {
  const { cli } = context;
  const [executable, ...args] = command;
  if (!executable)
    throw new ControlPlaneError('INVALID_OPTIONS', `usage: ${cli.name} run [options] -- COMMAND…`);
  const plane = await startFromFlags(context, true);
  let child: ReturnType<typeof spawn> | undefined;
  // Installed until the plane is stopped: a second Ctrl-C must not cut the stop short.
  const forward = (signal: NodeJS.Signals) => {
    if (child?.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  try {
    child = spawn(executable, args, {
      stdio: 'inherit',
      env: {
        ...process.env,
        [`${cli.envPrefix}_KUBECONFIG`]: plane.kubeconfigPath,
        [`${cli.envPrefix}_RUN_DIR`]: plane.runDir,
        KUBECONFIG: plane.kubeconfigPath,
      },
    });
    const started = child;
    return await new Promise<number>((resolve) => {
      started.once('error', (error) => {
        process.stderr.write(`${cli.name}: cannot run ${executable}: ${error.message}\n`);
        resolve(127);
      });
      started.once('exit', (code, signal) =>
        resolve(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1)),
      );
    });
  } finally {
    await plane.stop();
    for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
  }
}

async function down(context: Context, stateFile: string): Promise<number> {
  const name = context.cli.name;
  const state = readUpState(stateFile);
  if (!state) {
    process.stderr.write(`[${name}] nothing is up (no ${stateFile})\n`);
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
  process.stderr.write(`[${name}] down\n`);
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
