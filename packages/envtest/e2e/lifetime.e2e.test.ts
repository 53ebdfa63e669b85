// Process lifetime of @k/envtest in plain `node` programs (ESM and CommonJS) and under
// `k-envtest run`: every public wait holds the program open until it settles and nothing holds it
// after the last one; Ctrl-C and SIGKILL of whatever holds a plane leave no process behind.
// vitest's own event loop never empties, so only separate processes show this. The programs load
// the workspace's sources (tsx, the `@k/source` condition): no build needed.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MODULE_KINDS, startNodeProgram, type ModuleKind } from '@k/test-utils';
import { resolveCacheRoot } from '@k/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childEnvironment,
  isAlive,
  K_ENVTEST_BIN,
  processesMentioning,
  start,
  waitUntil,
} from './processes.js';

/** GONE_WITHIN_MS: what the issue allows between a holder's death and the last process gone. */
const GONE_WITHIN_MS = 10_000;

const SOURCES = ['--import', 'tsx', '--conditions=@k/source'];

/** The program's environment: the warm cache as the public one, no plane of an outer run. */
const PROGRAM_ENV = {
  K_ENVTEST_CACHE: resolveCacheRoot(),
  K_ENVTEST_KUBECONFIG: undefined,
  KUBEBUILDER_ASSETS: undefined,
};

/** A plane without nodes or controllers: restarts and faults still apply, at a third of the CPU. */
const LIGHT_PLANE =
  '{ nodes: 0, controllerManager: false, scheduler: false, build: false, stopGraceMs: 30_000 }';

/** STEPS are the public waits the program awaits one by one, nothing else pending. */
const STEPS = [
  'started',
  'user',
  'namespace',
  'service account user',
  'crds',
  'eventually',
  'audit',
  'webhook serving',
  'rotated',
  'webhooks',
  'webhooks uninstalled',
  'serving closed',
  'namespace deleted',
  'restarted',
  'fault proxy',
  'stalled',
  'healed',
  'stopped',
];

function load(kind: ModuleKind, name: string): string {
  return kind === 'esm' ? `await import('${name}')` : `require('${name}')`;
}

function waitsProgram(kind: ModuleKind): string {
  return `
const { startEnvironment, eventually, createWebhookServing } = ${load(kind, '@k/envtest')};
const startedAt = Date.now();
const step = (name) => console.log(\`step \${name} \${Date.now() - startedAt}\`);
const env = await startEnvironment(${LIGHT_PLANE});
step('started');
await env.user({ clusterRole: 'view' });
step('user');
const namespace = await env.createTestNamespace({ prefix: 'lifetime' });
step('namespace');
await env.serviceAccountUser({ namespace: namespace.name, name: 'robot' });
step('service account user');
await env.installCrds({ objects: [{
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.lifetime.example.com' },
  spec: { group: 'lifetime.example.com', scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
}] });
step('crds');
let attempts = 0;
await eventually(() => { if (++attempts < 3) throw new Error('not yet'); }, { intervalMs: 200 });
step('eventually');
await env.audit.waitFor({ verb: 'create', resource: 'namespaces', name: namespace.name }, 1);
step('audit');
const serving = await createWebhookServing();
step('webhook serving');
await serving.rotate();
step('rotated');
const webhooks = await env.installWebhooks({ serving, validating: [{
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'lifetime-' + namespace.name },
  webhooks: [{ name: 'never.lifetime.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None',
    failurePolicy: 'Ignore', namespaceSelector: { matchLabels: { 'lifetime.example.com/never': 'true' } },
    clientConfig: { service: { namespace: 'default', name: 'webhook', path: '/validate' } },
    rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }],
}] });
step('webhooks');
await webhooks.uninstall();
step('webhooks uninstalled');
await serving.close();
step('serving closed');
await namespace.delete({ wait: true });
step('namespace deleted');
await env.restart('kube-apiserver');
step('restarted');
const proxy = await env.faultProxy();
step('fault proxy');
await proxy.stall();
step('stalled');
await proxy.heal();
step('healed');
await env.stop();
step('stopped');`;
}

/** holdingProgram starts a plane, prints its run dir and idles until a signal ends it. */
function holdingProgram(kind: ModuleKind): string {
  return `
const { startEnvironment } = ${load(kind, '@k/envtest')};
const env = await startEnvironment(${LIGHT_PLANE});
console.log(\`runDir \${env.runDir}\`);
setInterval(() => {}, 1000);`;
}

/** expectGone waits until no process mentions `runDir` and it is removed. */
async function expectGone(runDir: string): Promise<void> {
  const cleaned = await waitUntil(
    () => processesMentioning(runDir).length === 0 && !existsSync(runDir),
    GONE_WITHIN_MS,
  );
  expect({ cleaned, left: processesMentioning(runDir), dir: existsSync(runDir) }).toEqual({
    cleaned: true,
    left: [],
    dir: false,
  });
}

describe.each(MODULE_KINDS)('a plain %s program', (kind) => {
  it('stays alive through every wait and exits 0 by itself right after stop()', async () => {
    const program = await startNodeProgram({ imports: {}, main: waitsProgram(kind) }, kind, {
      nodeArgs: SOURCES,
      env: PROGRAM_ENV,
      timeoutMs: 280_000,
    });
    await program.waitForStdout(/^step stopped \d+$/m, 270_000).catch(() => undefined);
    const stoppedAt = Date.now();
    const result = await program.exited;
    const exitedAfterMs = Date.now() - stoppedAt;
    const steps = [...result.stdout.matchAll(/^step (.+) (\d+)$/gm)].map((match) => match[1]);
    expect({ exitCode: result.exitCode, steps, stderr: result.stderr }).toEqual({
      exitCode: 0,
      steps: STEPS,
      stderr: '',
    });
    // Nothing holds the process after the last stop (a grace timer would hold it for 30 s).
    expect(exitedAfterMs).toBeLessThan(GONE_WITHIN_MS);
  }, 300_000);
});

describe('what holds a plane dies', () => {
  const signals: readonly [ModuleKind, NodeJS.Signals][] = [
    ['esm', 'SIGINT'],
    ['cjs', 'SIGKILL'],
  ];
  it.each(signals)(
    'a %s program ended by %s leaves no process behind',
    async (kind, signal) => {
      const program = await startNodeProgram({ imports: {}, main: holdingProgram(kind) }, kind, {
        nodeArgs: SOURCES,
        env: PROGRAM_ENV,
        timeoutMs: 280_000,
      });
      const [, runDir] = await program.waitForStdout(/^runDir (.+)$/m, 240_000);
      expect(processesMentioning(runDir!).length).toBeGreaterThan(0);
      program.child.kill(signal);
      const result = await program.exited;
      expect(result.signal).toBe(signal);
      await expectGone(runDir!);
    },
    300_000,
  );

  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'k-envtest-lifetime-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('a SIGKILLed k-envtest run takes its command and its plane with it', async () => {
    const script =
      "console.log('runDir ' + process.env.K_ENVTEST_RUN_DIR); setInterval(() => {}, 1000);";
    const run = start(
      process.execPath,
      [
        K_ENVTEST_BIN,
        'run',
        '--nodes=0',
        '--no-controller-manager',
        '--no-scheduler',
        '--',
        process.execPath,
        '-e',
        script,
      ],
      { cwd: scratch, env: childEnvironment(), timeoutMs: 280_000 },
    );
    const started = await waitUntil(
      () => /^runDir .+$/m.test(run.output().stdout) || run.child.exitCode !== null,
      240_000,
    );
    expect(started, JSON.stringify(run.output())).toBe(true);
    const runDir = /^runDir (.+)$/m.exec(run.output().stdout)![1]!;
    const command = processesMentioning(runDir).filter((pid) => pid !== run.child.pid);
    expect(command.length).toBeGreaterThan(0);

    run.child.kill('SIGKILL');
    await run.ended; // not its output: that stays open while the command lives
    try {
      await expectGone(runDir);
      expect(command.filter(isAlive)).toEqual([]);
    } finally {
      for (const pid of command.filter(isAlive)) process.kill(pid, 'SIGKILL');
    }
  }, 300_000);
});
