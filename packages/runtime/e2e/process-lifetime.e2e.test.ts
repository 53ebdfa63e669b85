import { MODULE_KINDS, runNodeProgram, startNodeProgram, type ModuleKind } from '@k/test-utils';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { describe, expect, it } from 'vitest';
import { UNREACHABLE_KUBECONFIG, clientsetFor } from './helpers.js';

// A controller program as a user writes it, run by plain `node` on the built packages: it stays
// alive while it runs, drains and exits 0 on SIGTERM, and exits non-zero when the server cannot
// be reached at start.
const PROGRAM = `// With --expose-gc: collect garbage before any timeout is due (Node 20 lost AbortSignal.timeout then).
if (globalThis.gc) setInterval(() => globalThis.gc(), 200).unref();
const cs = await inferClientset({ kubeconfig: process.env.KUBECONFIG_PATH, context: process.env.CONTEXT, throttle: 'off' });
const controller = new ControllerBuilder('lifetime')
  .for(cs.coreV1.configMaps(process.env.NAMESPACE), { labelSelector: 'test=lifetime' })
  .withOptions({ cacheSyncTimeoutMs: 3000, logger: SILENT_LOGGER })
  .complete(async (_configMap, { request }) => {
    console.log('RECONCILE ' + request.name);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    console.log('RECONCILED ' + request.name);
  });
const stop = new AbortController();
process.once('SIGTERM', () => {
  console.log('SIGTERM');
  stop.abort();
});
try {
  await controller.start(stop.signal);
  console.log('DRAINED');
} finally {
  await cs.close();
}`;

const IMPORTS = {
  '@k/clientset': ['inferClientset'],
  '@k/runtime': ['ControllerBuilder', 'SILENT_LOGGER'],
};

const namespace = useTestNamespace({ prefix: 'runtime-lifetime' });

describe.each(MODULE_KINDS)('a controller program (%s)', (kind: ModuleKind) => {
  it('stays alive while it runs and exits 0 on SIGTERM after finishing the running reconcile', async () => {
    const cs = await clientsetFor();
    const configMaps = cs.coreV1.configMaps(namespace.name);
    const labels = { test: 'lifetime' };
    try {
      await configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'first', labels },
      });
      const program = await startNodeProgram({ imports: IMPORTS, main: PROGRAM }, kind, {
        env: {
          KUBECONFIG_PATH: environment().kubeconfigPath,
          CONTEXT: 'admin',
          NAMESPACE: namespace.name,
        },
        timeoutMs: 60_000,
      });
      await program.waitForStdout(/RECONCILED first/, 30_000);
      // Idle, with only its watch open: it must not exit by itself.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(program.child.exitCode).toBeNull();

      await configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'second', labels },
      });
      await program.waitForStdout(/RECONCILE second/, 20_000);
      program.child.kill('SIGTERM');
      const result = await program.exited;
      expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
      expect(result.stderr).toBe('');
      const lines = result.stdout.trim().split('\n');
      // The reconcile running at SIGTERM finished before the program said it drained.
      expect(lines.slice(lines.indexOf('SIGTERM'))).toEqual([
        'SIGTERM',
        'RECONCILED second',
        'DRAINED',
      ]);
    } finally {
      await cs.close();
    }
  });

  it('exits non-zero with a typed error when the server cannot be reached at start, garbage collected or not', async () => {
    const started = Date.now();
    const result = await runNodeProgram(
      { imports: IMPORTS, main: PROGRAM, files: { kubeconfig: UNREACHABLE_KUBECONFIG } },
      kind,
      {
        env: { KUBECONFIG_PATH: 'kubeconfig', CONTEXT: 'nowhere', NAMESPACE: 'default' },
        timeoutMs: 30_000,
        nodeArgs: ['--expose-gc'],
      },
    );
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).not.toBe(0);
    expect(result.exitCode).not.toBeNull();
    expect(result.stderr).toMatch(/ERR_RUNTIME_NOT_SYNCED/);
    expect(result.stderr).toMatch(/informer for configmaps in namespace default did not sync/);
    expect(result.stderr).not.toMatch(/not-a-secret/);
    // The 3 s sync timeout, not the 60 s list timeout or a hang.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
