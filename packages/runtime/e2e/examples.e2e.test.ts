import { readFile } from 'node:fs/promises';
import { ignoreNotFound } from '@k/clientset';
import {
  MODULE_KINDS,
  startNodeProgram,
  type ModuleKind,
  type RunningNodeProgram,
} from '@k/test-utils';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { clientsetFor, eventually, jsonLogLines, transpileFor } from './helpers.js';

// examples/configmap-mirror.ts as a user's build emits it (plain .mjs and .cjs), importing the
// built packages by name, run by `node` against the real control plane.
const EXAMPLE = new URL('../examples/configmap-mirror.ts', import.meta.url);
const namespace = useTestNamespace({ prefix: 'runtime-example' });
const target = useTestNamespace({ prefix: 'runtime-example-mirror' });
const running: RunningNodeProgram[] = [];

afterEach(() => {
  for (const program of running.splice(0)) program.child.kill('SIGKILL');
});

async function startExample(kind: ModuleKind): Promise<RunningNodeProgram> {
  const compiled = transpileFor(await readFile(EXAMPLE, 'utf8'), kind);
  const file = kind === 'esm' ? 'configmap-mirror.mjs' : 'configmap-mirror.cjs';
  const program = await startNodeProgram(
    {
      // Nothing imported by the wrapper itself: listed so the build is checked for freshness.
      imports: { '@k/clientset': [], '@k/runtime': [] },
      main: kind === 'esm' ? `await import('./${file}');` : `require('./${file}');`,
      files: { [file]: compiled },
    },
    kind,
    {
      args: [
        `--kubeconfig=${environment().kubeconfigPath}`,
        '--context=admin',
        `--target-namespace=${target.name}`,
        '--port=0',
        '--metrics-port=0',
      ],
      timeoutMs: 90_000,
    },
  );
  running.push(program);
  return program;
}

const LABELS = { 'k-example/mirror': 'true' };

describe.each(MODULE_KINDS)('examples/configmap-mirror.ts (%s)', (kind) => {
  it('mirrors labelled ConfigMaps across namespaces, puts back a deleted mirror, deletes it with its source (finalizer), fails terminally once, serves metrics and stops on SIGTERM', async () => {
    const cs = await clientsetFor();
    const sources = cs.coreV1.configMaps(namespace.name);
    const mirrors = cs.coreV1.configMaps(target.name);
    const mirror = `${namespace.name}.greeting-${kind}`;
    try {
      const program = await startExample(kind);
      const [, probes] = await program.waitForStdout(/listening probes (\S+)/, 20_000);
      const [, metrics] = await program.waitForStdout(/listening metrics (\S+)/, 20_000);
      await eventually(async () => expect((await fetch(`${probes}/readyz`)).status).toBe(200));

      await sources.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `greeting-${kind}`, labels: LABELS },
        data: { hello: 'world' },
      });
      await eventually(async () =>
        expect((await ignoreNotFound(mirrors.get(mirror)))?.data).toEqual({ hello: 'world' }),
      );
      expect((await sources.get(`greeting-${kind}`)).metadata?.finalizers).toEqual([
        'k.example/mirror',
      ]);

      // The source changes: the mirror follows. Someone deletes the mirror: it is put back.
      await sources.patch(`greeting-${kind}`, 'merge', { data: { hello: 'again' } });
      await eventually(async () =>
        expect((await mirrors.get(mirror)).data).toEqual({ hello: 'again' }),
      );
      await mirrors.delete(mirror);
      await eventually(async () =>
        expect((await ignoreNotFound(mirrors.get(mirror)))?.data).toEqual({ hello: 'again' }),
      );

      // A labelled ConfigMap in the mirror namespace fails terminally: one Event, no retries.
      await mirrors.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `inside-${kind}`, labels: LABELS },
      });
      const failures = async (): Promise<number> =>
        (await cs.eventsV1.events(target.name).list()).items
          .filter((event) => event.regarding?.name === `inside-${kind}`)
          .filter((event) => event.reason === 'ReconcileFailed')
          .reduce((count, event) => count + (event.series?.count ?? 1), 0);
      await eventually(async () => expect(await failures()).toBe(1));

      const scraped = await (await fetch(`${metrics}/metrics`)).text();
      expect(scraped).toMatch(
        /controller_runtime_terminal_reconcile_errors_total\{controller="configmap-mirror"\} 1/,
      );
      expect(scraped).toMatch(/rest_client_requests_total\{[^}]*code="200"/);

      // Deleting a source deletes its mirror first (cleanup), then the source goes.
      await sources.delete(`greeting-${kind}`);
      await mirrors.delete(`inside-${kind}`);
      await eventually(async () => {
        expect(await ignoreNotFound(mirrors.get(mirror))).toBeUndefined();
        expect(await ignoreNotFound(sources.get(`greeting-${kind}`))).toBeUndefined();
        expect(await ignoreNotFound(mirrors.get(`inside-${kind}`))).toBeUndefined();
      });
      expect(await failures()).toBe(1);
      const mirrored = (await cs.eventsV1.events(namespace.name).list()).items.filter(
        (event) => event.regarding?.name === `greeting-${kind}` && event.reason === 'Mirrored',
      );
      expect(mirrored.length).toBeGreaterThanOrEqual(1);

      program.child.kill('SIGTERM');
      const result = await program.exited;
      expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
      expect(result.stdout.trim().split('\n').at(-1)).toBe('stopped');
      // The Manager's default logger: one JSON object per line on stderr.
      const lines = jsonLogLines(result.stderr);
      expect(lines.some((line) => line.msg === 'controller started')).toBe(true);
      // Only this test's objects: another test may run the same example beside it.
      const errors = lines.filter(
        (line) =>
          line.level === 'error' && [namespace.name, target.name].includes(String(line.namespace)),
      );
      expect(errors).toMatchObject([{ controller: 'configmap-mirror', name: `inside-${kind}` }]);
      expect(errors[0]?.error).toMatch(/not mirrored/);
    } finally {
      await cs.close();
    }
  });
});
