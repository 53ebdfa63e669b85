import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientsetError, CrdNotEstablishedError, type Clientset } from '../src/index.js';
import { findByKind } from '../src/discovery.js';
import { caught } from '@k/test-utils';
import { clientsetFor } from './helpers.js';

const run = promisify(execFile);

// applyManifests and CustomResourceDefinitions against the real API server: a CRD is only usable
// once the server has accepted its names, set Established and listed the kind in discovery.

const namespace = useTestNamespace({ prefix: 'clientset-apply-crds' });
let cs: Clientset;
const created: string[] = [];

beforeAll(async () => {
  cs = await clientsetFor();
});

afterEach(async () => {
  for (const name of created.splice(0)) {
    await cs.apiextensionsV1
      .customResourceDefinitions()
      .delete(name)
      .catch(() => undefined);
  }
});

afterAll(async () => {
  await cs?.close();
});

/** uniqueGroup is an API group of this test alone (CRDs are cluster-wide). */
function uniqueGroup(): string {
  return `g${namespace.name.replace(/[^a-z0-9]/g, '')}.k-clientset.test`;
}

function crdManifest(group: string, plural: string, kind: string): string {
  created.push(`${plural}.${group}`);
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: { plural: ${plural}, kind: ${kind} }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }
    - name: v2
      served: true
      storage: false
      schema:
        openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;
}

describe('applyManifests with CustomResourceDefinitions (real API server)', () => {
  it('applies a CRD and objects of its kind from one text in one call', async () => {
    const group = uniqueGroup();
    const text = `${crdManifest(group, 'sprockets', 'Sprocket')}---
apiVersion: ${group}/v2
kind: Sprocket
metadata: { name: first }
teeth: 12
---
apiVersion: ${group}/v1
kind: Sprocket
metadata: { name: second }
teeth: 8
`;
    const applied = await cs.applyManifests(text, {
      fieldManager: 'apply-crds',
      namespace: namespace.name,
    });
    expect(
      applied.map(
        ({ object, resource }) => `${object.kind}/${resource.version}/${object.metadata?.name}`,
      ),
    ).toEqual([
      `CustomResourceDefinition/v1/sprockets.${group}`,
      'Sprocket/v2/first',
      'Sprocket/v1/second',
    ]);
    const sprockets = cs.dynamic.resource(
      { group, version: 'v1', resource: 'sprockets' },
      namespace.name,
    );
    expect((await sprockets.get('first')).teeth).toBe(12);
  });

  it('returns after a CRD alone only once its kind is served: the next call can use it', async () => {
    const group = uniqueGroup();
    const applied = await cs.applyManifests(crdManifest(group, 'cogs', 'Cog'), {
      fieldManager: 'apply-crds',
    });
    expect(applied).toHaveLength(1);
    // The discovery the clientset holds already lists the kind in both versions, without
    // another fetch, and the resource answers at once (no retry, no wait on this side).
    const resources = await cs.discovery.serverResources();
    for (const version of ['v1', 'v2']) {
      expect(findByKind(resources, { group, version, kind: 'Cog' })?.plural, version).toBe('cogs');
    }
    const cogs = cs.dynamic.resource({ group, version: 'v1', resource: 'cogs' }, namespace.name);
    const cog = await cogs.create(
      { apiVersion: `${group}/v1`, kind: 'Cog', metadata: { name: 'c' }, size: 3 },
      { maxRetries: 0 },
    );
    expect(cog.metadata?.uid).toBeTruthy();
    // The CRD itself is Established.
    const crd = await cs.apiextensionsV1.customResourceDefinitions().get(`cogs.${group}`);
    expect(
      crd.status?.conditions?.find((condition) => condition.type === 'Established')?.status,
    ).toBe('True');
    // Applying the same CRD again finds it Established at once and returns.
    await cs.applyManifests(crdManifest(group, 'cogs', 'Cog'), { fieldManager: 'apply-crds' });
  });

  it('fails with a CrdNotEstablishedError naming the CRD when its names are not accepted', async () => {
    const group = uniqueGroup();
    await cs.applyManifests(crdManifest(group, 'gears', 'Gear'), { fieldManager: 'apply-crds' });
    // A second CRD of the group with the same kind: the server refuses its names
    // (NamesAccepted=False) and never establishes it.
    const failure = await caught(
      cs.applyManifests(crdManifest(group, 'gearboxes', 'Gear'), {
        fieldManager: 'apply-crds',
        waitForEstablished: { timeoutMs: 3_000 },
      }),
    );
    expect(CrdNotEstablishedError.isInstance(failure)).toBe(true);
    expect(ClientsetError.isInstance(failure) && failure.code).toBe(
      'ERR_CLIENTSET_CRD_NOT_ESTABLISHED',
    );
    const error = failure as CrdNotEstablishedError;
    expect(error).toMatchObject({
      crd: `gearboxes.${group}`,
      timeoutMs: 3_000,
      established: false,
    });
    expect(error.conditions).toContainEqual(
      expect.objectContaining({ type: 'NamesAccepted', status: 'False' }),
    );
    expect(error.message).toMatch(
      new RegExp(
        `^customresourcedefinition gearboxes\\.${group.replace(/\./g, '\\.')} was not established within 3000 ms: NamesAccepted=False \\((List)?KindConflict: "Gear(List)?" is already in use\\)`,
      ),
    );
    // The CRD was applied all the same; only the wait failed.
    expect(
      (await cs.apiextensionsV1.customResourceDefinitions().get(`gearboxes.${group}`)).metadata
        ?.name,
    ).toBe(`gearboxes.${group}`);
  });

  // Node 20 loses `AbortSignal.any([signal, AbortSignal.timeout(ms)])` once a GC ran before the
  // deadline; only a real process with a real GC shows whether a deadline survives one. With a
  // caller's signal, the wait links it with its deadline.
  it('fails at its deadline in a process that collects garbage before it is due', async () => {
    const group = uniqueGroup();
    await cs.applyManifests(crdManifest(group, 'pulleys', 'Pulley'), {
      fieldManager: 'apply-crds',
    });
    const program = [
      "import { inferClientset } from '../src/index.ts';",
      'const cs = await inferClientset({',
      "  kubeconfig: process.env.KUBECONFIG_PATH, context: 'admin', throttle: 'off',",
      '});',
      // Collect garbage all along, so GCs fall between the start of the wait and its deadline.
      'const collector = setInterval(() => globalThis.gc(), 50);',
      'collector.unref();',
      'const stop = new AbortController();',
      'const outcome = await cs',
      '  .applyManifests(process.env.MANIFEST, {',
      "    fieldManager: 'apply-crds',",
      '    waitForEstablished: { timeoutMs: 3000 },',
      '    signal: stop.signal,',
      '  })',
      "  .then(() => 'established', (error) => `${error.code}: ${error.message}`);",
      'await cs.close();',
      'console.log(outcome);',
    ].join('\n');
    const { stdout } = await run(
      process.execPath,
      [
        '--expose-gc',
        '--conditions=@k/source',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        program,
      ],
      {
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env: {
          ...process.env,
          KUBECONFIG_PATH: controlPlane().kubeconfigPath,
          // The same kind again: NamesAccepted=False, never Established.
          MANIFEST: crdManifest(group, 'pulleyblocks', 'Pulley'),
        },
        timeout: 30_000,
      },
    );
    expect(stdout.trim()).toMatch(
      new RegExp(
        `^ERR_CLIENTSET_CRD_NOT_ESTABLISHED: customresourcedefinition pulleyblocks\\.${group.replace(/\./g, '\\.')} was not established within 3000 ms: NamesAccepted=False`,
      ),
    );
  });

  it('with waitForEstablished: false, a CRD alone is applied without waiting, and a dry run never waits', async () => {
    const group = uniqueGroup();
    // Names that can never be accepted: a wait would fail; not waiting returns.
    await cs.applyManifests(crdManifest(group, 'wheels', 'Wheel'), { fieldManager: 'apply-crds' });
    const clash = crdManifest(group, 'rims', 'Wheel');
    const applied = await cs.applyManifests(clash, {
      fieldManager: 'apply-crds',
      waitForEstablished: false,
    });
    expect(applied.map(({ object }) => object.metadata?.name)).toEqual([`rims.${group}`]);
    const dryRun = await cs.applyManifests(clash, {
      fieldManager: 'apply-crds',
      dryRun: 'All',
      waitForEstablished: { timeoutMs: 60_000 },
    });
    expect(dryRun).toHaveLength(1);
  });
});
