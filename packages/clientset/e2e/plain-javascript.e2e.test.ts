import { MODULE_KINDS, runNodeProgram } from '@k/test-utils';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clientset } from '../src/index.js';
import { clientsetFor } from './helpers.js';

const namespace = useTestNamespace({ prefix: 'clientset-plain-js' });
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
});

afterAll(async () => {
  await cs?.close();
});

// A real plain-JavaScript program (no compiler to stop it) makes the mistakes the types forbid,
// against the real API server; every one must be a typed error and nothing may be written.
const PROGRAM = `const cs = await inferClientset({ kubeconfig: process.env.KUBECONFIG_PATH, context: 'admin' });
const configMaps = cs.coreV1.configMaps(process.env.NAMESPACE);
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'written' }, data: { a: 'b' } };
const mistakes = {
  applyWithoutOptions: () => configMaps.apply(configMap),
  applyManifestsWithoutOptions: () => cs.applyManifests('apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: written}\\n'),
  createOfText: () => configMaps.create(JSON.stringify(configMap)),
  createWithDryRunFalse: () => configMaps.create(configMap, { dryRun: false }),
  getWithoutName: () => configMaps.get(),
  listWithASelectorString: () => configMaps.list('app=web'),
  namespaceAsNumber: () => cs.coreV1.configMaps(5),
};
for (const [mistake, make] of Object.entries(mistakes)) {
  try {
    await make();
    console.log(mistake, 'no error');
  } catch (error) {
    console.log(JSON.stringify({ mistake, name: error.name, code: error.code, message: error.message }));
  }
}
await cs.close();`;

describe.each(MODULE_KINDS)('a plain %s program that misuses the API', (kind) => {
  it('gets a typed error saying what to pass for every mistake, and nothing is written', async () => {
    const result = await runNodeProgram(
      { imports: { '@k/clientset': ['inferClientset'] }, main: PROGRAM },
      kind,
      { env: { KUBECONFIG_PATH: controlPlane().kubeconfigPath, NAMESPACE: namespace.name } },
    );
    expect(result).toMatchObject({ exitCode: 0, stderr: '' });
    const errors = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(errors).toEqual([
      {
        mistake: 'applyWithoutOptions',
        name: 'ClientsetError',
        code: 'ERR_CLIENTSET_INVALID_ARGUMENT',
        message: 'configmaps apply: options must be an object with fieldManager, got undefined',
      },
      {
        mistake: 'applyManifestsWithoutOptions',
        name: 'ClientsetError',
        code: 'ERR_CLIENTSET_INVALID_ARGUMENT',
        message: 'applyManifests: options must be an object with fieldManager, got undefined',
      },
      {
        mistake: 'createOfText',
        name: 'ClientsetError',
        code: 'ERR_CLIENTSET_INVALID_OBJECT',
        message: 'configmaps create: the object must be an object, got a string',
      },
      {
        mistake: 'createWithDryRunFalse',
        name: 'ClientsetError',
        code: 'ERR_CLIENTSET_INVALID_ARGUMENT',
        message: "configmaps create: options.dryRun must be 'All' or true, got a boolean",
      },
      {
        mistake: 'getWithoutName',
        name: 'ClientsetError',
        code: 'ERR_CLIENTSET_INVALID_ARGUMENT',
        message: 'configmaps get: name must be a non-empty string, got undefined',
      },
      {
        mistake: 'listWithASelectorString',
        name: 'ClientsetError',
        code: 'ERR_CLIENTSET_INVALID_ARGUMENT',
        message: 'configmaps list: options must be an object, got a string',
      },
      {
        mistake: 'namespaceAsNumber',
        name: 'ClientsetError',
        code: 'ERR_CLIENTSET_INVALID_ARGUMENT',
        message: 'configmaps: namespace must be a string, got a number',
      },
    ]);
    const written = await cs.coreV1.configMaps(namespace.name).list();
    expect(written.items.map((item) => item.metadata?.name)).not.toContain('written');
  });
});
