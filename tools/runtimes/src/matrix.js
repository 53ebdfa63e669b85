import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';

/**
 * @typedef {object} MatrixLine
 * @property {string} version the Node version the line's steps run on (`22.23.5`)
 * @property {Record<string, string>} env the steps' environment (that Node's folder first on PATH)
 */

/**
 * @typedef {object} MatrixOptions
 * @property {readonly number[]} lines the Node lines to run, in order
 * @property {readonly string[]} steps the names of the steps to run on each line, in order
 * @property {Readonly<Record<string, readonly string[]>>} commands each step's command, by name
 * @property {(line: number) => Promise<MatrixLine>} prepare makes a line ready (installs its Node)
 * @property {string} cwd the folder the steps run in
 * @property {(line: string) => void} log is told each step's command and the summary
 */

/**
 * @typedef {object} MatrixOutcome
 * @property {boolean} failed whether a step ended other than with exit code 0
 * @property {NodeJS.Signals | undefined} signal the SIGINT or SIGTERM that stopped the matrix
 */

/** STOP_SIGNALS are the signals that stop the matrix (Ctrl-C, kill). */
const STOP_SIGNALS = /** @type {const} */ (['SIGINT', 'SIGTERM']);

function load() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0] ?? '?';
  } catch {
    return '?';
  }
}

/**
 * runMatrix runs `options.steps` on each of `options.lines` in order and logs a summary line per
 * step that ran. A SIGINT or SIGTERM received meanwhile is passed on to the running step; once
 * that step has ended no further step or line starts, the summary is still logged, and the
 * outcome names the signal (end the process with {@link exitAsMatrix}). A step ended by a signal
 * reports exit 128 + the signal's number, as a shell does. The signal handlers are removed when
 * it returns.
 * @param {MatrixOptions} options
 * @returns {Promise<MatrixOutcome>}
 */
export async function runMatrix(options) {
  /** @type {NodeJS.Signals | undefined} */
  let stopped;
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let running;
  /** @param {NodeJS.Signals} signal */
  const stop = (signal) => {
    stopped ??= signal;
    running?.kill(signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  /** @type {string[]} */
  const summary = [];
  let failed = false;
  try {
    for (const line of options.lines) {
      if (stopped) break;
      const { version, env } = await options.prepare(line);
      for (const step of options.steps) {
        if (stopped) break;
        const command = options.commands[step] ?? [];
        options.log(`\ntest-matrix: node ${version}, ${step}: ${command.join(' ')}`);
        const before = load();
        const started = performance.now();
        const child = spawn(command[0] ?? '', command.slice(1), {
          cwd: options.cwd,
          env,
          stdio: 'inherit',
        });
        running = child;
        const code = await exitCode(child, options.log);
        running = undefined;
        const seconds = Math.round((performance.now() - started) / 1000);
        failed ||= code !== 0;
        summary.push(
          `test-matrix: node ${version} ${step}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s (load ${before} → ${load()})`,
        );
      }
    }
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, stop);
  }
  if (stopped) summary.push(`test-matrix: stopped by ${stopped}`);
  options.log(`\n${summary.join('\n')}`);
  return { failed, signal: stopped };
}

/**
 * exitCode resolves with how `child` ended: its exit code, 128 + the signal's number when a
 * signal ended it, 127 when it could not start.
 * @param {import('node:child_process').ChildProcess} child
 * @param {(line: string) => void} log
 * @returns {Promise<number>}
 */
function exitCode(child, log) {
  return new Promise((resolve) => {
    child.once('error', (error) => {
      log(`test-matrix: ${child.spawnfile}: ${error.message}`);
      resolve(127);
    });
    child.once('exit', (code, signal) => {
      resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
    });
  });
}

/**
 * exitAsMatrix ends this process as `outcome` says: by raising the signal that stopped the matrix
 * again (its handlers are gone, so the process dies of it, as its parent expects), else with exit
 * code 1 when a step failed and 0 when all passed.
 * @param {MatrixOutcome} outcome
 */
export function exitAsMatrix(outcome) {
  if (outcome.signal) process.kill(process.pid, outcome.signal);
  else process.exitCode = outcome.failed ? 1 : 0;
}
