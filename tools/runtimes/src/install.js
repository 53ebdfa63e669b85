import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { RuntimeError } from './errors.js';

/**
 * @typedef {import('./pins.js').RuntimeSpec & { source?: string | undefined }} InstallSpec
 * `source` replaces `packageName@version` as what npm installs (a tarball, in tests).
 */

/**
 * @typedef {object} InstalledRuntime
 * @property {string} name what was asked for (`node@24`)
 * @property {string} version
 * @property {string} executable the binary's absolute path
 * @property {string} binDir the binary's folder, to put first on PATH
 */

/**
 * @typedef {object} InstallOptions
 * @property {string | undefined} [cacheDirectory] overrides {@link cacheDirectory}
 * @property {Readonly<Record<string, string | undefined>> | undefined} [env] npm's environment
 *   (default: this process's)
 * @property {((line: string) => void) | undefined} [log] told one line when an install starts
 */

/** MARKER is written into an install only after its binary ran, then the folder is renamed in place. */
const MARKER = 'k-runtimes.json';

/** INSTALL_TIMEOUT_MS bounds one `npm install` (a cold Node download is ~40 MB). */
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** STDERR_LIMIT is how much of npm's stderr is kept for an error message (its end). */
const STDERR_LIMIT = 4_000;

/**
 * cacheDirectory is where runtimes are installed: `$K_RUNTIMES_CACHE`, else
 * `$XDG_CACHE_HOME/k-runtimes`, else `/var/cache/k-runtimes` for root and `~/.cache/k-runtimes`
 * for anyone else. Not under root's home: /root is mode 0700, and a config test runs the Node
 * under test as `nobody`, which must be able to execute it. Each runtime gets
 * `<runtime>-<version>` in it (`node-24.22.3`, `bun-1.4.5`).
 * @param {Readonly<Record<string, string | undefined>>} [env]
 * @param {number | undefined} [uid] the user id (process.getuid(); undefined where there is none)
 * @returns {string}
 */
export function cacheDirectory(env = process.env, uid = process.getuid?.()) {
  if (env.K_RUNTIMES_CACHE) return path.resolve(env.K_RUNTIMES_CACHE);
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'k-runtimes');
  if (uid === 0) return '/var/cache/k-runtimes';
  return path.join(os.homedir(), '.cache', 'k-runtimes');
}

/**
 * installRuntime returns the runtime of `spec` from the cache, installing it first when it is
 * missing: `npm install` of its package into a new temporary folder beside the final one, a run of
 * `<binary> --version` that must print the pinned version, then a rename to the final folder.
 * The rename is atomic, so a folder that exists is complete and verified; callers that race (in
 * one process or many) each install, the first rename wins and the others use its folder.
 * Throws {@link RuntimeError} (`K_RUNTIMES_INSTALL_FAILED`, `K_RUNTIMES_NOT_RUNNABLE`) naming the
 * runtime and version.
 * @param {InstallSpec} spec
 * @param {InstallOptions} [options]
 * @returns {Promise<InstalledRuntime>}
 */
export async function installRuntime(spec, options = {}) {
  const cache = options.cacheDirectory ?? cacheDirectory(options.env);
  const directory = path.join(cache, `${spec.runtime}-${spec.version}`);
  const installed = await readInstalled(spec, directory);
  if (installed) return installed;

  await mkdir(cache, { recursive: true });
  options.log?.(`k-runtimes: installing ${describe(spec)} into ${directory}`);
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const temporary = path.join(cache, `.tmp-${spec.runtime}-${spec.version}-${suffix}`);
  try {
    await mkdir(temporary);
    await npmInstall(spec, temporary, options.env ?? process.env);
    await verify(spec, path.join(temporary, 'node_modules', spec.packageName, spec.executable));
    const marker = { name: spec.runtime, version: spec.version, packageName: spec.packageName };
    await writeFile(path.join(temporary, MARKER), `${JSON.stringify(marker)}\n`);
    try {
      await rename(temporary, directory);
    } catch (error) {
      // Another caller renamed its install first: its folder is as good as ours.
      const winner = await readInstalled(spec, directory);
      if (winner) return winner;
      throw new RuntimeError(
        'K_RUNTIMES_INSTALL_FAILED',
        `could not install ${describe(spec)}: ${directory} exists but is not a complete install (remove it)`,
        { runtime: spec.name, version: spec.version, cause: error },
      );
    }
    return located(spec, directory);
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}

/**
 * @param {InstallSpec} spec
 * @returns {string}
 */
function describe(spec) {
  return `${spec.runtime} ${spec.version} (${spec.source ?? `${spec.packageName}@${spec.version}`})`;
}

/**
 * @param {InstallSpec} spec
 * @param {string} directory
 * @returns {InstalledRuntime}
 */
function located(spec, directory) {
  const executable = path.join(directory, 'node_modules', spec.packageName, spec.executable);
  return {
    name: spec.name,
    version: spec.version,
    executable,
    binDir: path.dirname(executable),
  };
}

/**
 * readInstalled returns the install in `directory` when its marker says it is `spec`'s.
 * @param {InstallSpec} spec
 * @param {string} directory
 * @returns {Promise<InstalledRuntime | undefined>}
 */
async function readInstalled(spec, directory) {
  let marker;
  try {
    marker = JSON.parse(await readFile(path.join(directory, MARKER), 'utf8'));
  } catch {
    return undefined;
  }
  if (marker?.version !== spec.version || marker?.packageName !== spec.packageName) {
    return undefined;
  }
  return located(spec, directory);
}

/**
 * npmEnvironment is `env` without the settings an enclosing `npm run` or `npm install` passes
 * down that would change where or what this install writes.
 * @param {Readonly<Record<string, string | undefined>>} env
 * @returns {Record<string, string>}
 */
function npmEnvironment(env) {
  /** @type {Record<string, string>} */
  const result = {};
  const changesTheInstall =
    /^npm_config_(workspaces?|include_workspace_root|global|prefix|local_prefix|location|dry_run|omit|include|production|only|save.*|package_lock.*|lockfile_version|ignore_scripts|install_links|install_strategy|os|cpu|libc)$/i;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || changesTheInstall.test(name)) continue;
    result[name] = value;
  }
  return result;
}

/**
 * redact removes what could be a credential from npm's output (a registry URL's user info, an
 * auth setting, a token).
 * @param {string} text
 * @returns {string}
 */
export function redact(text) {
  return text
    .replace(/\/\/[^\s/@:]+:[^\s/@]+@/g, '//***@')
    .replace(/(_auth(?:Token)?|_password|token)(\s*[=:]\s*)\S+/gi, '$1$2***')
    .replace(/(authorization:\s*)(\S+\s+)?\S+/gi, '$1***')
    .replace(/\bnpm_[A-Za-z0-9]{20,}\b/g, 'npm_***');
}

/**
 * @param {InstallSpec} spec
 * @param {string} prefix
 * @param {Readonly<Record<string, string | undefined>>} env
 * @returns {Promise<void>}
 */
function npmInstall(spec, prefix, env) {
  const args = [
    'install',
    '--prefix',
    prefix,
    '--no-save',
    '--no-package-lock',
    // The runtimes' packages hold prebuilt binaries and need no script.
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    '--no-update-notifier',
    '--loglevel=error',
    spec.source ?? `${spec.packageName}@${spec.version}`,
  ];
  return new Promise((resolve, reject) => {
    /** @param {string} reason @param {unknown} [cause] */
    const fail = (reason, cause) =>
      reject(
        new RuntimeError(
          'K_RUNTIMES_INSTALL_FAILED',
          `could not install ${describe(spec)} from the registry: ${reason}`,
          { runtime: spec.name, version: spec.version, cause },
        ),
      );
    const child = spawn('npm', args, {
      cwd: prefix,
      env: npmEnvironment(env),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (/** @type {string} */ chunk) => {
      stderr = (stderr + chunk).slice(-STDERR_LIMIT);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), INSTALL_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      const missing = /** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT';
      fail(missing ? 'npm was not found on PATH' : `npm did not start: ${error.message}`, error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      // npm's own stack frames say nothing about the cause.
      const output = redact(
        stderr
          .split('\n')
          .filter((line) => !/^(npm error)?\s+at /.test(line))
          .join('\n')
          .trim(),
      );
      fail(`npm install ${how}${output ? `:\n${output}` : ''}`);
    });
  });
}

/**
 * verify runs `<executable> --version` and requires the pinned version in what it prints.
 * @param {InstallSpec} spec
 * @param {string} executable
 * @returns {Promise<void>}
 */
function verify(spec, executable) {
  return new Promise((resolve, reject) => {
    execFile(executable, ['--version'], { timeout: 60_000 }, (error, stdout, stderr) => {
      const printed = `${stdout}`.trim().slice(0, 200);
      if (!error && printed.split(/\s+/).some((word) => word.replace(/^v/, '') === spec.version)) {
        return resolve();
      }
      const reason = error
        ? `${error.message.split('\n')[0]}${stderr ? `: ${`${stderr}`.trim().slice(0, 500)}` : ''}`
        : `it printed ${JSON.stringify(printed)}`;
      reject(
        new RuntimeError(
          'K_RUNTIMES_NOT_RUNNABLE',
          `${describe(spec)} was installed but its binary ${spec.executable} does not run as ${spec.runtime} ${spec.version}: ${reason}`,
          { runtime: spec.name, version: spec.version, cause: error ?? undefined },
        ),
      );
    });
  });
}
