#!/usr/bin/env node
// npm run test:matrix: the workspace's tests on every tested Node line but the primary one (which
// `npm test` covers). Plain JavaScript with no dependency: it runs on any Node >= 18 and starts
// each step on the line under test, with that line's folder first on PATH, so every child the
// tests spawn (process.execPath, `node`, npx and `#!/usr/bin/env node` bins) runs on it too.
//
//   node tools/runtimes/bin/test-matrix.mjs [--line 22] [--step unit|e2e]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  ensureRuntime,
  PRIMARY_NODE_LINE,
  RuntimeError,
  runtimeEnvironment,
  TESTED_NODE_LINES,
} from '../src/index.js';

const WORKSPACE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * INSTALLED_E2E are the e2e files that pack the packages, install the tarballs into an empty
 * project and run them as a user does (ESM and CommonJS, against the real control plane), and the
 * one proving their children run on the line under test.
 */
const INSTALLED_E2E = [
  'tools/workspace/e2e/installed-examples.e2e.test.ts',
  'packages/envtest/e2e/installed-example.e2e.test.ts',
  'packages/codegen/e2e/installed-k-gen.e2e.test.ts',
  'tools/runtimes/e2e/matrix-line.e2e.test.ts',
];

/** STEPS are what runs on each line, in order. */
const STEPS = {
  // The unit suites of every project, with no Nx cache replay (a cached result is another line's).
  unit: ['npx', 'nx', 'run-many', '-t', 'test', '--output-style=stream'],
  // The installed-tarball examples (needs a build: npm test, or npx nx run-many -t build).
  e2e: ['npx', 'vitest', 'run', '--config', 'vitest.e2e.config.ts', ...INSTALLED_E2E],
};

/** @param {string} line */
const log = (line) => process.stderr.write(`${line}\n`);

function load() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0] ?? '?';
  } catch {
    return '?';
  }
}

/**
 * @param {string[]} command
 * @param {Record<string, string>} env
 * @returns {Promise<number>}
 */
function run(command, env) {
  const [program = '', ...args] = command;
  return new Promise((resolve) => {
    const child = spawn(program, args, { cwd: WORKSPACE_ROOT, env, stdio: 'inherit' });
    const forward = () => child.kill('SIGTERM');
    process.once('SIGINT', forward).once('SIGTERM', forward);
    child.once('error', (error) => {
      log(`test-matrix: ${program}: ${error.message}`);
      resolve(127);
    });
    child.once('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

/** @param {string[]} argv */
function parse(argv) {
  /** @type {number[]} */
  const lines = [];
  /** @type {string[]} */
  const steps = [];
  for (let index = 0; index < argv.length; index += 2) {
    const [flag, value] = [argv[index], argv[index + 1]];
    if (flag === '--line' && value && TESTED_NODE_LINES.includes(Number(value))) {
      lines.push(Number(value));
    } else if (flag === '--step' && value && value in STEPS) steps.push(value);
    else {
      log(
        `usage: test-matrix [--line ${TESTED_NODE_LINES.join('|')}]… [--step ${Object.keys(STEPS).join('|')}]…`,
      );
      process.exit(2);
    }
  }
  return {
    lines: lines.length ? lines : TESTED_NODE_LINES.filter((line) => line !== PRIMARY_NODE_LINE),
    steps: steps.length ? steps : Object.keys(STEPS),
  };
}

async function main() {
  const { lines, steps } = parse(process.argv.slice(2));
  /** @type {string[]} */
  const summary = [];
  let failed = false;
  for (const line of lines) {
    const runtime = await ensureRuntime(`node@${line}`, { log });
    const env = { ...runtimeEnvironment(runtime), NX_SKIP_NX_CACHE: 'true' };
    for (const step of steps) {
      const command = STEPS[/** @type {keyof typeof STEPS} */ (step)];
      log(`\ntest-matrix: node ${runtime.version}, ${step}: ${command.join(' ')}`);
      const before = load();
      const started = performance.now();
      const code = await run(command, env);
      const seconds = Math.round((performance.now() - started) / 1000);
      failed ||= code !== 0;
      summary.push(
        `test-matrix: node ${runtime.version} ${step}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s (load ${before} → ${load()})`,
      );
    }
  }
  log(`\n${summary.join('\n')}`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((/** @type {unknown} */ error) => {
  log(`test-matrix: ${error instanceof RuntimeError ? error.message : String(error)}`);
  process.exitCode = 1;
});
