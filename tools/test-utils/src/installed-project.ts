import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { followChild } from './child-output.js';
import { assertBuilt, WORKSPACE_ROOT } from './node-program.js';

/** CommandResult is how a command ended and what it printed. */
export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** RunCommandOptions tune {@link runCommand}. */
export interface RunCommandOptions {
  /** env is added to the user's environment (`undefined` removes a variable). */
  env?: Readonly<Record<string, string | undefined>>;
  /** timeoutMs kills the command with SIGKILL after this long (default 120 000). */
  timeoutMs?: number;
}

/** userEnvironment is the test's environment without what npm, vitest, tsx or Nx set for it. */
export function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|NODE_OPTIONS$|TSX_|NX_)/i.test(name)) continue;
    env[name] = value;
  }
  return env;
}

/** environmentWith is the user's environment with `changes` (`undefined` removes a variable). */
function environmentWith(
  changes: Readonly<Record<string, string | undefined>> = {},
): NodeJS.ProcessEnv {
  const env = userEnvironment();
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** runCommand runs a command (no shell) in `cwd` as a user's terminal would and collects its output. */
export function runCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  options: RunCommandOptions = {},
): Promise<CommandResult> {
  const env = environmentWith(options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** StartCommandOptions tune {@link startCommand}. */
export interface StartCommandOptions {
  /** env is added to the user's environment (`undefined` removes a variable). */
  env?: Readonly<Record<string, string | undefined>>;
  /** killAfterMs is how long stop() waits after its signal before SIGKILL (default 20 000). */
  killAfterMs?: number;
}

/** CommandExit is how a started command ended and all it printed. */
export interface CommandExit extends CommandResult {
  signal: NodeJS.Signals | null;
  /** killed is true when stop() had to end the command with SIGKILL. */
  killed: boolean;
}

/** RunningCommand is a command started by {@link startCommand}, running until it is stopped. */
export interface RunningCommand {
  readonly child: ChildProcess;
  /** stdout is what the command printed so far. */
  stdout(): string;
  /** stderr is what the command wrote to stderr so far. */
  stderr(): string;
  /**
   * waitForStdout resolves when stdout matches `pattern`; it rejects, with stdout and stderr,
   * when the command exits first or after `timeoutMs` (default 30 000).
   */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /**
   * stop sends `signal` (default SIGTERM) and resolves when the command has exited; one that is
   * still running `killAfterMs` later is killed with SIGKILL (then `killed` is true), so a
   * command that ignores the signal ends the test with what it printed, not at its timeout.
   */
  stop(signal?: NodeJS.Signals): Promise<CommandExit>;
}

/**
 * startCommand starts a command (no shell) in `cwd` as {@link runCommand} does and leaves it
 * running: for programs that serve until stopped, such as an operator.
 */
export function startCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  options: StartCommandOptions = {},
): RunningCommand {
  const child = spawn(command, args, {
    cwd,
    env: environmentWith(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = followChild(child);
  return {
    child,
    stdout: output.stdout,
    stderr: output.stderr,
    waitForStdout: output.waitForStdout,
    async stop(signal = 'SIGTERM') {
      let killed = false;
      const timer = setTimeout(() => {
        killed = child.kill('SIGKILL');
      }, options.killAfterMs ?? 20_000);
      child.kill(signal);
      try {
        const exit = await output.closed;
        return {
          status: exit.exitCode,
          signal: exit.signal,
          stdout: exit.stdout,
          stderr: exit.stderr,
          killed,
        };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * kubectl runs kubectl (from PATH) with `--kubeconfig kubeconfig` and `args` and returns its
 * stdout; it throws with kubectl's stderr when kubectl fails.
 */
export async function kubectl(args: readonly string[], kubeconfig: string): Promise<string> {
  const result = await runCommand('kubectl', ['--kubeconfig', kubeconfig, ...args], tmpdir());
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** InstalledProject is an empty npm project outside the workspace with the packed packages installed. */
export interface InstalledProject {
  /** directory holds the project (`package.json`, `node_modules`). */
  readonly directory: string;
  /** tarballs are the packed `.tgz` files, by package name (`@k/config` → path). */
  readonly tarballs: ReadonlyMap<string, string>;
  /** remove deletes the project and its tarballs. */
  remove(): Promise<void>;
}

/** InstallOptions say what {@link installPackedPackages} installs. */
export interface InstallOptions {
  /** packages are workspace folders under `packages/` (`config`, `rest`, …). */
  packages: readonly string[];
  /** dependencies are installed beside them from the registry (`name@version`). */
  dependencies?: readonly string[];
  /** manifest fields are added to the project's package.json (e.g. `type: 'module'`). */
  manifest?: Readonly<Record<string, unknown>>;
}

/**
 * installPackedPackages packs the workspace packages with `npm pack` (as they would be
 * published: built `dist/`, the `files` list), then installs the tarballs and the other
 * dependencies with `npm install` into a new empty project in the system's temporary folder — no
 * workspace links, no tsx, no `@k/source`: what a user gets. The packages must be built (checked
 * first).
 */
export async function installPackedPackages(options: InstallOptions): Promise<InstalledProject> {
  const names = options.packages;
  await assertBuilt({
    imports: Object.fromEntries(names.map((name) => [`@k/${name}`, []])),
    main: '',
  });
  const root = await mkdtemp(path.join(tmpdir(), 'k-installed-'));
  const remove = () => rm(root, { recursive: true, force: true });
  try {
    const tarballDirectory = path.join(root, 'tarballs');
    const directory = path.join(root, 'project');
    await mkdir(tarballDirectory);
    await mkdir(directory);
    const packed = await runCommand(
      'npm',
      [
        'pack',
        '--json',
        '--pack-destination',
        tarballDirectory,
        ...names.flatMap((name) => ['--workspace', `packages/${name}`]),
      ],
      WORKSPACE_ROOT,
    );
    if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
    const entries = JSON.parse(packed.stdout) as { name: string; filename: string }[];
    const tarballs = new Map(
      entries.map((entry) => [entry.name, path.join(tarballDirectory, entry.filename)]),
    );
    await writeFile(
      path.join(directory, 'package.json'),
      `${JSON.stringify({ name: 'k-user', private: true, ...options.manifest }, null, 2)}\n`,
    );
    const installed = await runCommand(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        ...tarballs.values(),
        ...(options.dependencies ?? []),
      ],
      directory,
      { timeoutMs: 300_000 },
    );
    if (installed.status !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
    return { directory, tarballs, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
