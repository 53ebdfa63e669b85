#!/usr/bin/env node
// k-runtimes: the pinned runtimes from the command line. Plain JavaScript with no dependency, so
// it runs on any Node >= 18 before `npm ci` (CI installs the primary Node with it first).
import { spawn } from 'node:child_process';
import { devNodeDecision, readEnginesFloor } from '../src/dev-node.js';
import { runtimeSpec } from '../src/pins.js';
import {
  ensureRuntime,
  PRIMARY_NODE_LINE,
  RUNTIME_NAMES,
  RuntimeError,
  runtimeEnvironment,
} from '../src/index.js';

const USAGE = `usage: k-runtimes <command>
  install <name>              install the runtime into the cache (if missing)
  path <name>                 print its executable (installing it first if missing)
  exec <name> -- <command…>   run the command with the runtime's folder first on PATH
  dev-path                    print the PATH a workspace script runs with: unchanged when this
                              Node is at least the package.json's engines.node floor, else with
                              Node ${PRIMARY_NODE_LINE} first (and one line on stderr saying so)
names: ${RUNTIME_NAMES.join(', ')}`;

/** @param {string} line */
const log = (line) => process.stderr.write(`${line}\n`);

/**
 * run starts `command` on `runtime`, passes SIGINT, SIGTERM and SIGHUP on to it, and ends this
 * process the way the command ended (its exit code, or the same signal).
 * @param {import('../src/index.js').InstalledRuntime} runtime
 * @param {string[]} command
 */
function run(runtime, command) {
  const [program = '', ...args] = command;
  const child = spawn(program, args, { env: runtimeEnvironment(runtime), stdio: 'inherit' });
  /** @type {NodeJS.Signals[]} */
  const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  /** @param {NodeJS.Signals} signal */
  const forward = (signal) => child.kill(signal);
  for (const signal of forwarded) process.on(signal, forward);
  child.once('error', (error) => {
    const missing = /** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT';
    log(`k-runtimes: ${missing ? `${program}: command not found` : error.message}`);
    process.exit(missing ? 127 : 126);
  });
  child.once('exit', (code, signal) => {
    for (const name of forwarded) process.off(name, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

async function main() {
  const [command, name, ...rest] = process.argv.slice(2);
  if (command === 'install' && name && rest.length === 0) {
    const runtime = await ensureRuntime(name, { log });
    log(`k-runtimes: ${runtime.name} ${runtime.version} at ${runtime.executable}`);
    return;
  }
  if (command === 'path' && name && rest.length === 0) {
    const runtime = await ensureRuntime(name, { log });
    process.stdout.write(`${runtime.executable}\n`);
    return;
  }
  if (command === 'exec' && name && rest[0] === '--' && rest.length > 1) {
    run(await ensureRuntime(name, { log }), rest.slice(1));
    return;
  }
  if (command === 'dev-path' && name === undefined) {
    const floor = await readEnginesFloor(process.cwd());
    const primary = `node@${PRIMARY_NODE_LINE}`;
    const decision = devNodeDecision(process.versions.node, floor, runtimeSpec(primary).version);
    if (!decision.switches) {
      process.stdout.write(`${process.env.PATH ?? ''}\n`);
      return;
    }
    const runtime = await ensureRuntime(primary, { log });
    log(decision.message ?? '');
    process.stdout.write(`${runtimeEnvironment(runtime).PATH}\n`);
    return;
  }
  log(USAGE);
  process.exitCode = 2;
}

main().catch((/** @type {unknown} */ error) => {
  log(`k-runtimes: ${error instanceof RuntimeError ? error.message : String(error)}`);
  process.exitCode = 1;
});
