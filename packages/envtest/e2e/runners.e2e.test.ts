// The runners as users run them: a child `vitest run` on a fixture project (one plane for the run
// from the global setup, a file with a plane of its own, a file that leaves a namespace stuck, no
// global setup at all, a SIGKILLed runner), and a child `node --test` on fixture files, alone and
// under `k-envtest run`. Each child is a real runner process with the workspace's sources.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assetsDirectory, resolveCacheRoot } from '@k/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childEnvironment,
  descendantsOf,
  isAlive,
  K_ENVTEST_BIN,
  processesMentioning,
  reportLines,
  start,
  VITEST_BIN,
  waitUntil,
} from './processes.js';

const VITEST_PROJECT = fileURLToPath(new URL('fixtures/vitest-project/', import.meta.url));
const NODE_TEST_FILES = fileURLToPath(new URL('fixtures/node-test/', import.meta.url));

/** GONE_WITHIN_MS: what the issue allows between a runner's end and the last process gone. */
const GONE_WITHIN_MS = 10_000;

let scratch: string;
let assets: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'k-envtest-runners-'));
  // kube-apiserver and etcd only (setup-envtest's layout): the lightest plane a file can start.
  assets = await assetsDirectory({ cacheRoot: resolveCacheRoot() });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface VitestJsonReport {
  testResults: {
    name: string;
    status: string;
    message: string;
    assertionResults: { title: string; status: string }[];
  }[];
}

let runs = 0;
/** runVitest runs the fixture project's `files` in a child vitest and reads what they reported. */
async function runVitest(files: readonly string[], env: Record<string, string | undefined> = {}) {
  const id = ++runs;
  const reportPath = path.join(scratch, `report-${id}.jsonl`);
  const resultsPath = path.join(scratch, `results-${id}.json`);
  const run = start(
    process.execPath,
    [
      VITEST_BIN,
      'run',
      '--config',
      'vitest.config.ts',
      '--reporter=json',
      `--outputFile=${resultsPath}`,
    ],
    {
      cwd: VITEST_PROJECT,
      env: childEnvironment({ FIXTURE_REPORT: reportPath, FIXTURE_FILES: files.join(','), ...env }),
      timeoutMs: 300_000,
    },
  );
  const result = await run.exited;
  const results = existsSync(resultsPath)
    ? (JSON.parse(await readFile(resultsPath, 'utf8')) as VitestJsonReport)
    : undefined;
  const byFile = Object.fromEntries(
    (results?.testResults ?? []).map((file) => [path.basename(file.name), file]),
  );
  return { ...result, byFile, reports: reportLines(reportPath) };
}

/** gone waits until no process mentions any of `runDirs` and the directories are removed. */
async function expectGone(runDirs: readonly string[]): Promise<void> {
  expect(
    runDirs.every((dir) => /^\/.+\/k-testenv-[^/]+$/.test(dir)),
    runDirs.join(' '),
  ).toBe(true);
  const cleaned = await waitUntil(
    () => runDirs.every((dir) => processesMentioning(dir).length === 0 && !existsSync(dir)),
    GONE_WITHIN_MS,
  );
  expect({
    cleaned,
    left: runDirs.flatMap((dir) => processesMentioning(dir)),
    dirs: runDirs.filter((dir) => existsSync(dir)),
  }).toEqual({ cleaned: true, left: [], dirs: [] });
}

describe('@k/envtest/vitest under a child vitest run', () => {
  it('shares one plane across files, gives a file its own, reports a stuck namespace at the file end and leaves nothing', async () => {
    const run = await runVitest([
      'shared-a.fixture.ts',
      'shared-b.fixture.ts',
      'own.fixture.ts',
      'stuck.fixture.ts',
    ]);
    const statuses = Object.fromEntries(
      Object.entries(run.byFile).map(([file, result]) => [file, result.status]),
    );
    expect(statuses, run.stderr).toEqual({
      'shared-a.fixture.ts': 'passed',
      'shared-b.fixture.ts': 'passed',
      'own.fixture.ts': 'passed',
      'stuck.fixture.ts': 'failed',
    });
    expect(run.code).toBe(1);
    // The stuck file's tests passed: its end failed, naming what holds the namespace.
    const stuck = run.byFile['stuck.fixture.ts']!;
    expect(stuck.assertionResults.map((test) => test.status)).toEqual(['passed']);
    const stuckNamespace = run.reports.find((entry) => entry.file === 'stuck')?.namespace;
    expect(run.stdout + stuck.message).toContain('example.com/hold');
    expect(stuck.message).toContain(String(stuckNamespace));
    expect(stuck.message).toContain('held');

    const shared = run.reports.filter((entry) => entry.file !== 'own' && entry.server);
    const servers = new Set(shared.map((entry) => entry.server));
    expect(servers.size, JSON.stringify(run.reports)).toBe(1);
    const own = run.reports.find((entry) => entry.file === 'own')!;
    expect(servers.has(own.server)).toBe(false);
    const namespaces = run.reports
      .filter((entry) => entry.file === 'shared-a' && entry.namespace)
      .map((entry) => entry.namespace);
    expect(new Set(namespaces).size).toBe(2);
    // After the file, the clientsets it made are closed (shared-a checks in its last afterAll).
    expect(run.reports).toContainEqual(expect.objectContaining({ file: 'shared-a', closed: true }));
    expect(run.stderr).toMatch(/\[k-envtest\] control plane ready in \d+ms/);

    const kubeconfigPath = shared.find((entry) => typeof entry.kubeconfigPath === 'string')
      ?.kubeconfigPath as string;
    const sharedRunDir = path.dirname(kubeconfigPath);
    await expectGone([sharedRunDir, String(own.runDir)]);
  }, 400_000);

  it('without a global setup, useEnvironment() starts a plane for the file and says how to share one', async () => {
    const run = await runVitest(['shared-a.fixture.ts'], {
      FIXTURE_GLOBAL_SETUP: 'none',
      KUBEBUILDER_ASSETS: assets,
    });
    expect(run.byFile['shared-a.fixture.ts']?.status, run.stderr).toBe('passed');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "[k-envtest] no control plane for the run: starting one for this file. Share one across files with globalSetup: ['@k/envtest/vitest/global-setup']",
    );
    const kubeconfigs = new Set(
      run.reports.flatMap((entry) =>
        typeof entry.kubeconfigPath === 'string' ? [entry.kubeconfigPath] : [],
      ),
    );
    expect(kubeconfigs.size).toBe(1);
    await expectGone([path.dirname([...kubeconfigs][0]!)]);
  }, 300_000);

  it('a SIGKILLed vitest leaves no worker and no plane process behind', async () => {
    const id = ++runs;
    const reportPath = path.join(scratch, `report-${id}.jsonl`);
    const run = start(process.execPath, [VITEST_BIN, 'run', '--config', 'vitest.config.ts'], {
      cwd: VITEST_PROJECT,
      env: childEnvironment({
        FIXTURE_REPORT: reportPath,
        FIXTURE_FILES: 'blocking.fixture.ts',
      }),
      timeoutMs: 300_000,
    });
    const ready = await waitUntil(
      () => reportLines(reportPath).length > 0 || run.child.exitCode !== null,
      240_000,
    );
    expect(ready && reportLines(reportPath).length, JSON.stringify(run.output())).toBe(1);
    const runDir = path.dirname(String(reportLines(reportPath)[0]!.kubeconfigPath));
    const descendants = descendantsOf(run.child.pid!);
    expect(descendants.length).toBeGreaterThan(0);

    run.child.kill('SIGKILL');
    await run.exited;
    const ended = await waitUntil(() => !descendants.some(isAlive), GONE_WITHIN_MS);
    expect({ ended, left: descendants.filter(isAlive) }).toEqual({ ended: true, left: [] });
    await expectGone([runDir]);
  }, 300_000);
});

describe('@k/envtest/node-test under a child node --test', () => {
  const files = ['configmaps.test.mjs', 'namespaces.test.cjs'];

  it('starts a plane per file (ESM and CommonJS) when nothing is running', async () => {
    const reportPath = path.join(scratch, 'node-alone.jsonl');
    const run = await start(process.execPath, ['--test', ...files], {
      cwd: NODE_TEST_FILES,
      env: childEnvironment({ FIXTURE_REPORT: reportPath, KUBEBUILDER_ASSETS: assets }),
      timeoutMs: 300_000,
    }).exited;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const reports = reportLines(reportPath);
    expect(reports.map((entry) => entry.file).sort()).toEqual(['cjs', 'esm']);
    expect(new Set(reports.map((entry) => entry.server)).size).toBe(2);
    await expectGone(reports.map((entry) => path.dirname(String(entry.kubeconfigPath))));
  }, 300_000);

  it('under k-envtest run, both files use the run’s one plane', async () => {
    const reportPath = path.join(scratch, 'node-run.jsonl');
    const run = await start(
      process.execPath,
      [K_ENVTEST_BIN, 'run', '--nodes=0', '--', process.execPath, '--test', ...files],
      {
        cwd: NODE_TEST_FILES,
        env: childEnvironment({ FIXTURE_REPORT: reportPath, KUBEBUILDER_ASSETS: assets }),
        timeoutMs: 300_000,
      },
    ).exited;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const reports = reportLines(reportPath);
    expect(reports.map((entry) => entry.file).sort()).toEqual(['cjs', 'esm']);
    expect(new Set(reports.map((entry) => entry.kubeconfigPath)).size).toBe(1);
    await expectGone([path.dirname(String(reports[0]!.kubeconfigPath))]);
  }, 300_000);
});
