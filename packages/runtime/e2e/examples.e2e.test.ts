import { readFile } from 'node:fs/promises';
import {
  MODULE_KINDS,
  startNodeProgram,
  type ModuleKind,
  type RunningNodeProgram,
} from '@k/test-utils';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { clientsetFor, eventually } from './helpers.js';

// examples/configmap-mirror.ts as a user's build emits it (plain .mjs and .cjs), importing the
// built packages by name, run by `node` against the real control plane.
const EXAMPLE = new URL('../examples/configmap-mirror.ts', import.meta.url);
const namespace = useTestNamespace({ prefix: 'runtime-example' });
const running: RunningNodeProgram[] = [];

afterEach(() => {
  for (const program of running.splice(0)) program.child.kill('SIGKILL');
});

async function startExample(kind: ModuleKind): Promise<RunningNodeProgram> {
  const compiled = ts.transpileModule(await readFile(EXAMPLE, 'utf8'), {
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: kind === 'esm' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS,
    },
  }).outputText;
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
        `--kubeconfig=${controlPlane().kubeconfigPath}`,
        '--context=admin',
        `--namespace=${namespace.name}`,
        '--port=0',
        '--metrics-port=0',
      ],
      timeoutMs: 90_000,
    },
  );
  running.push(program);
  return program;
}

describe.each(MODULE_KINDS)('examples/configmap-mirror.ts (%s)', (kind) => {
  it('mirrors labelled ConfigMaps, repairs a deleted copy, never adopts a ConfigMap it did not make, records Events and stops on SIGTERM', async () => {
    const cs = await clientsetFor();
    const configMaps = cs.coreV1.configMaps(namespace.name);
    try {
      const program = await startExample(kind);
      const [, url] = await program.waitForStdout(/listening probes (\S+)/, 20_000);
      await eventually(async () => expect((await fetch(`${url}/readyz`)).status).toBe(200));

      await configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'greeting', labels: { 'k-example/mirror': 'true' } },
        data: { hello: 'world' },
      });
      await program.waitForStdout(/mirrored \S+\/greeting -> greeting-copy/, 20_000);
      const copy = await configMaps.get('greeting-copy');
      expect(copy.data).toEqual({ hello: 'world' });
      expect(copy.metadata?.ownerReferences).toMatchObject([
        { kind: 'ConfigMap', name: 'greeting', controller: true },
      ]);

      // Someone deletes the copy: it is put back.
      await configMaps.delete('greeting-copy');
      await eventually(
        async () =>
          expect((await configMaps.get('greeting-copy')).data).toEqual({ hello: 'world' }),
        20_000,
      );

      // A ConfigMap of a copy's name that someone else made is never adopted.
      await configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'taken-copy' },
        data: { theirs: 'yes' },
      });
      await configMaps.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'taken', labels: { 'k-example/mirror': 'true' } },
        data: { hello: 'world' },
      });
      await program.waitForStdout(/left \S+\/taken-copy alone: not ours/, 20_000);
      const theirs = await configMaps.get('taken-copy');
      expect(theirs.data).toEqual({ theirs: 'yes' });
      expect(theirs.metadata?.ownerReferences).toBeUndefined();
      expect(theirs.metadata?.labels).toBeUndefined();
      await eventually(async () => {
        const conflicts = (await cs.eventsV1.events(namespace.name).list()).items.filter(
          (event) => event.regarding?.name === 'taken' && event.reason === 'Conflict',
        );
        expect(conflicts).toHaveLength(1);
        expect(conflicts[0]?.type).toBe('Warning');
      });

      const events = (await cs.eventsV1.events(namespace.name).list()).items.filter(
        (event) => event.regarding?.name === 'greeting' && event.reason === 'Mirrored',
      );
      expect(events).toHaveLength(1);
      expect(events[0]?.series?.count ?? 1).toBeGreaterThanOrEqual(1);

      program.child.kill('SIGTERM');
      const result = await program.exited;
      expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false, stderr: '' });
      expect(result.stdout.trim().split('\n').at(-1)).toBe('stopped');
    } finally {
      await cs.close();
    }
  });
});
