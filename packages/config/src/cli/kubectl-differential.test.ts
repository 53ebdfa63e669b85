import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Scenario } from './__fixtures__/kubectl-scenarios.js';
import { generateScenario, generateScenarios } from './__fixtures__/kubectl-scenarios.js';
import {
  argsFor,
  describeScenario,
  fileStates,
  materialize,
  runK,
  failureKind,
  runKubectl,
  sameViewOutput,
} from './__fixtures__/run-scenario.js';

/**
 * The differential suite: kubectl (client-go inside) is the oracle. Each generated scenario
 * runs `kubectl config …` as a process and `k-config …` in-process on the same files, env
 * (HOME, KUBECONFIG), cwd and flags. `view` must succeed or fail alike and print the same
 * JSON after normalising Go's zero values (see normalizeConfigJson); `use-context` and
 * `set-context` run on two copies of the files, which must then hold the same configuration.
 */
const FIRST_SEED = 20_260_000;
const COUNT = 800;
const KUBECONFIG_PATHS = [
  'home/.kube/config',
  'cfg/a.yaml',
  'cfg/b.json',
  'cfg/sub/c.yaml',
  'other/d',
  'e.yaml',
  'missing/kubeconfig',
  'nowhere/missing.yaml',
];

const kubectlVersion = (() => {
  try {
    return execFileSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  } catch {
    return undefined;
  }
})();

const onlySeed = process.env.KUBECTL_DIFF_SEED;
const scenarios = onlySeed
  ? [generateScenario(Number(onlySeed))]
  : generateScenarios(FIRST_SEED, COUNT);
const scratch = mkdtempSync(join(tmpdir(), 'k-kubectl-diff-'));
// Hundreds of scenario directories: removing them can take a while on a loaded machine.
afterAll(() => rmSync(scratch, { recursive: true, force: true }), 120_000);

function failure(scenario: Scenario, details: Record<string, unknown>): string {
  return `${describeScenario(scenario)}\n=== results\n${JSON.stringify(details, null, 2)}`;
}

// kubectl is the oracle: without it this suite must fail, not quietly skip.
if (kubectlVersion === undefined) {
  throw new Error(
    'kubectl is not on PATH: the kubeconfig differential suite needs it as its oracle',
  );
}

describe('k-config matches kubectl config', () => {
  it('generates enough varied scenarios', () => {
    if (onlySeed) return;
    const count = (feature: string) =>
      scenarios.filter((scenario) => scenario.features.includes(feature)).length;
    expect(scenarios.length).toBeGreaterThanOrEqual(500);
    expect(
      scenarios.filter((scenario) => scenario.command === 'view').length,
    ).toBeGreaterThanOrEqual(500);
    for (const feature of [
      'several-files',
      'cwd-elsewhere',
      'explicit-path',
      'explicit-missing',
      'kubeconfig-env',
      'env-missing-file',
      'env-duplicate',
      'env-empty-entry',
      'home-config',
      'json',
      'yaml',
      'raw',
      'minify',
      'flatten',
      'context-flag',
      'null-stanza',
      'null-list',
      'yaml11-bool',
      'file-reference',
      'exec',
      'auth-provider',
      'extensions',
      'yaml-merge-key',
      'multi-document',
      'duplicate-key',
      'crlf',
      'byte-order-mark',
      'env-directory',
      'empty-file',
      'error-duplicate',
      'error-type',
      'error-base64',
      'error-version',
      'error-kind',
      'error-syntax',
      'use-context',
      'set-context',
    ]) {
      expect(count(feature), feature).toBeGreaterThanOrEqual(3);
    }
  });

  it.concurrent.each(
    scenarios.map((scenario) => ({ ...scenario, title: scenario.features.join(' ') })),
  )(
    'seed $seed: $command $title',
    async (scenario) => {
      if (scenario.command === 'view') {
        const side = materialize(scenario, join(scratch, String(scenario.seed)));
        const args = argsFor(scenario, side, ['-o', 'json']);
        const [kubectl, k] = [await runKubectl(args, side), await runK(args, side)];
        const same =
          kubectl.code === k.code &&
          (kubectl.code === 0
            ? sameViewOutput(kubectl.stdout, k.stdout)
            : failureKind(kubectl.stderr, side.cwd) === failureKind(k.stderr, side.cwd));
        if (!same) expect.fail(failure(scenario, { kubectl, k }));
        return;
      }
      const kubectlSide = materialize(scenario, join(scratch, `${scenario.seed}-kubectl`));
      const kSide = materialize(scenario, join(scratch, `${scenario.seed}-k`));
      const kubectl = await runKubectl(argsFor(scenario, kubectlSide), kubectlSide);
      const k = await runK(argsFor(scenario, kSide), kSide);
      const kubectlFiles = fileStates(kubectlSide, KUBECONFIG_PATHS);
      const kFiles = fileStates(kSide, KUBECONFIG_PATHS);
      const same =
        kubectl.code === k.code &&
        kubectl.stdout === k.stdout &&
        (kubectl.code === 0 ||
          failureKind(kubectl.stderr, kubectlSide.cwd) === failureKind(k.stderr, kSide.cwd)) &&
        JSON.stringify(kubectlFiles) === JSON.stringify(kFiles);
      if (!same) expect.fail(failure(scenario, { kubectl, k, kubectlFiles, kFiles }));
    },
    20_000,
  );
});
