#!/usr/bin/env node
// npm run test:matrix: the workspace's tests on every tested Node line but the primary one (which
// `npm test` covers). Plain JavaScript with no dependency: it runs on any Node >= 18 and starts
// each step on the line under test, with that line's folder first on PATH, so every child the
// tests spawn (process.execPath, `node`, npx and `#!/usr/bin/env node` bins) runs on it too.
//
//   node tools/runtimes/bin/test-matrix.mjs [--line 22] [--step unit|e2e]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ensureRuntime,
  PRIMARY_NODE_LINE,
  RuntimeError,
  runtimeEnvironment,
  TESTED_NODE_LINES,
} from '../src/index.js';
import { exitAsMatrix, runMatrix } from '../src/matrix.js';

const WORKSPACE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * INSTALLED_E2E are the e2e files that pack the packages, install the tarballs into an empty
 * project and run them as a user does (ESM and CommonJS, against the real control plane). That
 * their children run on the line under test is proven by the unit step (src/matrix-line.test.ts).
 */
const INSTALLED_E2E = [
  'tools/workspace/e2e/installed-examples.e2e.test.ts',
  'packages/envtest/e2e/installed-example.e2e.test.ts',
  'packages/codegen/e2e/installed-k-gen.e2e.test.ts',
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
    } else if (flag === '--step' && value && Object.hasOwn(STEPS, value)) steps.push(value);
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
  const outcome = await runMatrix({
    lines,
    steps,
    commands: STEPS,
    cwd: WORKSPACE_ROOT,
    log,
    prepare: async (line) => {
      const runtime = await ensureRuntime(`node@${line}`, { log });
      return {
        version: runtime.version,
        env: { ...runtimeEnvironment(runtime), NX_SKIP_NX_CACHE: 'true' },
      };
    },
  });
  exitAsMatrix(outcome);
}

main().catch((/** @type {unknown} */ error) => {
  log(`test-matrix: ${error instanceof RuntimeError ? error.message : String(error)}`);
  process.exitCode = 1;
});
