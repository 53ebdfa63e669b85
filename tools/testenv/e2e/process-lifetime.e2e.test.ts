import { MODULE_KINDS, startNodeProgram, type ModuleKind } from '@k/test-utils';
import { describe, expect, it } from 'vitest';

// Each program runs as a plain `node` process: vitest's own event loop never empties, so only a
// separate process shows a wait that does not hold the process open (Node then ends a program
// with an unsettled top-level await with exit code 13) or something left behind that holds it
// open after the work is done. @k/testenv is not built: the program loads its sources with tsx.

/**
 * STOP_GRACE_MS is far longer than any stop should take and shorter than kube-apiserver's own
 * 60 s HTTP shutdown timeout: a stop that runs into SIGKILL, or a grace timer left running after
 * the last stop, shows.
 */
const STOP_GRACE_MS = 30_000;

/** STEPS are the public waits the program awaits one by one, nothing else pending. */
const STEPS = [
  'started',
  'restarted etcd',
  'restarted kube-apiserver',
  'restarted kube-controller-manager',
  'restarted kube-scheduler',
  'restarted kwok',
  'stopped kube-apiserver',
  'started kube-apiserver',
  'compacted etcd',
  'fault proxy',
  'stalled',
  'healed',
  'refused',
  'healed again',
  'proxy in front',
  'proxy closed',
  'namespace',
  'audit records',
  'stopped',
];

function lifetimeProgram(kind: ModuleKind): string {
  const load = (name: string) =>
    kind === 'esm' ? `await import('${name}')` : `require('${name}')`;
  return `
const { startControlPlane, FaultProxy, createTestNamespace, waitForAuditRecords } = ${load('@k/testenv')};
const { join } = ${load('node:path')};
const startedAt = Date.now();
const step = (name) => console.log(\`step \${name} \${Date.now() - startedAt}\`);
const plane = await startControlPlane({ build: false, nodes: 1, stopGraceMs: ${STOP_GRACE_MS} });
step('started');
for (const component of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok']) {
  await plane.restart(component);
  step(\`restarted \${component}\`);
}
await plane.stopComponent('kube-apiserver');
step('stopped kube-apiserver');
await plane.startComponent('kube-apiserver');
step('started kube-apiserver');
await plane.compactEtcd();
step('compacted etcd');
const proxy = await plane.faultProxy();
step('fault proxy');
await proxy.stall();
step('stalled');
await proxy.heal();
step('healed');
await proxy.refuse();
step('refused');
await proxy.heal();
step('healed again');
const inFront = await FaultProxy.inFrontOf(plane, join(plane.runDir, 'kubeconfig-in-front'));
step('proxy in front');
await inFront.close();
step('proxy closed');
const namespace = await createTestNamespace({ connection: plane, prefix: 'lifetime' });
step('namespace');
await waitForAuditRecords(plane.auditLogPath, { verb: 'create', resource: 'namespaces', name: namespace.name }, 1);
step('audit records');
await plane.stop();
step('stopped');`;
}

describe.each(MODULE_KINDS)('a plain %s program', (kind) => {
  it('stays alive through every wait of a control plane and exits 0 by itself when done', async () => {
    const program = await startNodeProgram({ imports: {}, main: lifetimeProgram(kind) }, kind, {
      nodeArgs: ['--import', 'tsx'],
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
    // Nothing is left holding the process open after the last stop (a grace timer would keep it
    // for STOP_GRACE_MS).
    expect(exitedAfterMs).toBeLessThan(10_000);
  }, 300_000);
});
