import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CustomResourceDefinition } from '@k/clientset/apiextensions/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectEnvironment, EnvtestError, type Environment } from '../src/index.js';

// The run's shared plane: CRDs are cluster-scoped, so each name carries this file's random group
// and every CRD made here is deleted at the end.
const group = `e2e-${randomBytes(4).toString('hex')}.envtest.example.com`;
const kubeconfigPath = process.env.K_ENVTEST_KUBECONFIG ?? process.env.K_TESTENV_KUBECONFIG;
let environment: Environment;
let scratch: string;
const made = new Set<string>();

function crd(kind: string, scope: 'Namespaced' | 'Cluster' = 'Namespaced') {
  const plural = `${kind.toLowerCase()}s`;
  made.add(`${plural}.${group}`);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  } satisfies CustomResourceDefinition;
}

const yamlOf = (object: object) => JSON.stringify(object, null, 2);

async function failure(work: Promise<unknown>): Promise<EnvtestError> {
  const error = await work.then(
    () => new Error('expected a failure'),
    (caught: unknown) => caught,
  );
  if (!EnvtestError.isInstance(error)) throw error;
  return error;
}

beforeAll(async () => {
  environment = connectEnvironment(kubeconfigPath);
  scratch = await mkdtemp(path.join(tmpdir(), 'k-envtest-crds-e2e-'));
});

afterAll(async () => {
  const client = (await environment.admin.clientset()).apiextensionsV1.customResourceDefinitions();
  await Promise.all([...made].map((name) => client.delete(name).catch(() => undefined)));
  await environment.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('installCrds', () => {
  it('installs from a directory (multi-document, other kinds and files skipped, not recursive) and from objects, ready at once', async () => {
    const directory = path.join(scratch, 'crds');
    await mkdir(path.join(directory, 'nested'), { recursive: true });
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-a-crd' } };
    const kustomization = {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: ['widgets.yaml'],
    };
    await writeFile(
      path.join(directory, 'widgets.yaml'),
      `${yamlOf(crd('Widget'))}\n---\n${yamlOf(configMap)}\n---\n${yamlOf(crd('Gizmo', 'Cluster'))}\n`,
    );
    await writeFile(path.join(directory, 'kustomization.yml'), yamlOf(kustomization));
    await writeFile(path.join(directory, 'sprockets.json'), yamlOf(crd('Sprocket')));
    await writeFile(path.join(directory, 'README.md'), '# not read\n');
    await writeFile(path.join(directory, 'nested', 'ignored.yaml'), yamlOf(crd('Ignored')));
    made.delete(`ignoreds.${group}`);

    const installed = await environment.installCrds({
      paths: [directory],
      objects: [crd('Doohickey')],
    });
    expect([...installed.names].sort()).toEqual(
      [`doohickeys.${group}`, `gizmos.${group}`, `sprockets.${group}`, `widgets.${group}`].sort(),
    );

    // A new handle has new clientsets, with no discovery cached: the kinds must be served now.
    const fresh = connectEnvironment(environment.kubeconfigPath);
    try {
      await fresh.apply(
        [
          { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'one' }, spec: { a: 1 } },
          { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'two' } },
          { apiVersion: `${group}/v1`, kind: 'Doohickey', metadata: { name: 'three' } },
        ],
        { namespace: 'default' },
      );
    } finally {
      await fresh.close();
    }
    const crds = (await environment.admin.clientset()).apiextensionsV1.customResourceDefinitions();
    await expect(crds.get(`ignoreds.${group}`)).rejects.toMatchObject({ statusCode: 404 });

    // Server-side apply makes a second install of the same CRDs a no-op, as on a shared plane.
    const again = await environment.installCrds({
      paths: [directory],
      objects: [crd('Doohickey')],
    });
    expect([...again.names].sort()).toEqual([...installed.names].sort());

    await installed.uninstall();
    for (const name of installed.names) {
      await expect(crds.get(name)).rejects.toMatchObject({ statusCode: 404 });
    }
  });

  it('fails on a missing path unless told to skip it', async () => {
    const missing = path.join(scratch, 'no-such-dir');
    const error = await failure(environment.installCrds({ paths: [missing] }));
    expect(error.code).toBe('ERR_ENVTEST_CRD_PATH_MISSING');
    expect(error.message).toContain(missing);
    const skipped = await environment.installCrds({ paths: [missing], errorIfPathMissing: false });
    expect(skipped.names).toEqual([]);
  });

  it('names the file and document of an invalid CRD, and the object the server refuses', async () => {
    const file = path.join(scratch, 'invalid.yaml');
    const wrongName = { ...crd('Bad'), metadata: { name: `bad.${group}` } };
    made.delete(`bads.${group}`);
    await writeFile(
      file,
      `${yamlOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })}\n---\n${yamlOf(wrongName)}\n`,
    );
    const local = await failure(environment.installCrds({ paths: [file] }));
    expect(local.code).toBe('ERR_ENVTEST_CRD_INVALID');
    expect(local.message).toContain(`${file} document 2`);

    // Two storage versions: only kube-apiserver's validation says no.
    const twoStorage = crd('Twostore');
    made.add(`twostores.${group}`);
    const versions = [
      twoStorage.spec.versions[0]!,
      { ...twoStorage.spec.versions[0]!, name: 'v2' },
    ];
    const server = await failure(
      environment.installCrds({
        objects: [{ ...twoStorage, spec: { ...twoStorage.spec, versions } }],
      }),
    );
    expect(server.code).toBe('ERR_ENVTEST_CRD_INVALID');
    expect(server.message).toContain('objects[0]');
    expect(server.message).toMatch(/storage/);
  });
});
