import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCrdSource, crdsOfText, readCrds } from './crds.js';
import { EnvtestError } from './errors.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'k-envtest-crds-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

function crd(plural: string, group = 'example.com', extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind: plural[0]!.toUpperCase() + plural.slice(1, -1) },
      versions: [{ name: 'v1', served: true, storage: true }],
      ...extra,
    },
  };
}

const yamlOf = (object: object) => JSON.stringify(object);

async function refusal(work: Promise<unknown>): Promise<EnvtestError> {
  const error = await work.then(
    () => new Error('expected a refusal'),
    (caught: unknown) => caught,
  );
  if (!EnvtestError.isInstance(error)) throw error;
  return error;
}

describe('readCrds', () => {
  it('reads files and directories non-recursively, every document, skipping other kinds and files', async () => {
    const directory = path.join(scratch, 'bases');
    await mkdir(path.join(directory, 'nested'), { recursive: true });
    await writeFile(
      path.join(directory, 'a.yaml'),
      `# comment\n${yamlOf(crd('apples'))}\n---\n${yamlOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })}\n---\n`,
    );
    await writeFile(
      path.join(directory, 'b.yml'),
      `kind: List\napiVersion: v1\nitems:\n  - ${yamlOf(crd('bananas'))}\n`,
    );
    await writeFile(path.join(directory, 'c.JSON'), yamlOf(crd('cherries')));
    await writeFile(path.join(directory, 'kustomization.yaml'), 'resources: [a.yaml]\n');
    await writeFile(path.join(directory, 'notes.txt'), yamlOf(crd('ignored')));
    await writeFile(path.join(directory, 'nested', 'd.yaml'), yamlOf(crd('nested')));
    const single = path.join(scratch, 'single.crd');
    await writeFile(single, yamlOf(crd('dates')));

    const found = await readCrds({
      paths: [directory, single],
      objects: [crd('elderberries') as never],
    });
    expect(found.map(({ crd: item }) => item.metadata?.name)).toEqual([
      'apples.example.com',
      'bananas.example.com',
      'cherries.example.com',
      'dates.example.com',
      'elderberries.example.com',
    ]);
    expect(found.map(({ origin }) => origin)).toEqual([
      `${path.join(directory, 'a.yaml')} document 1`,
      `${path.join(directory, 'b.yml')} document 1`,
      `${path.join(directory, 'c.JSON')} document 1`,
      `${single} document 1`,
      'objects[0]',
    ]);
  });

  it('fails on a missing path by default, and skips it when told to', async () => {
    const missing = path.join(scratch, 'missing');
    const error = await refusal(readCrds({ paths: [missing] }));
    expect(error.code).toBe('ERR_ENVTEST_CRD_PATH_MISSING');
    expect(error.message).toContain(missing);
    expect(error.message).toContain('errorIfPathMissing: false');
    expect(await readCrds({ paths: [missing], errorIfPathMissing: false })).toEqual([]);
  });

  it.each([
    [
      { ...crd('wrongs'), apiVersion: 'apiextensions.k8s.io/v1beta1' },
      /apiVersion must be apiextensions.k8s.io\/v1/,
    ],
    [
      { ...crd('wrongs'), metadata: { name: 'wrong.example.com' } },
      /metadata.name must be spec.names.plural/,
    ],
    [{ ...crd('wrongs'), metadata: {} }, /metadata.name is missing/],
    [crd('wrongs', 'example.com', { versions: [] }), /at least one version/],
    [
      crd('wrongs', 'example.com', { names: { kind: 'Wrong' } }),
      /spec.names.plural and spec.names.kind/,
    ],
  ])('names the file and document of an invalid CRD (%#)', async (invalid, reason) => {
    const file = path.join(scratch, 'invalid.yaml');
    await writeFile(file, `${yamlOf(crd('fines'))}\n---\n${yamlOf(invalid)}\n`);
    const error = await refusal(readCrds({ paths: [file] }));
    expect(error.code).toBe('ERR_ENVTEST_CRD_INVALID');
    expect(error.message).toContain(`${file} document 2`);
    expect(error.message).toMatch(reason);
  });

  it('reports a YAML syntax error by file, document and position, without quoting the text', async () => {
    const error = await refusal(
      crdsOfText(`${yamlOf(crd('fines'))}\n---\nkey: [unclosed secret-value\n`, 'f.yaml'),
    );
    expect(error.code).toBe('ERR_ENVTEST_CRD_INVALID');
    expect(error.message).toContain('f.yaml document 2');
    expect(error.message).not.toContain('secret-value');
  });

  it('refuses YAML aliases that repeat past the limit', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let level = 1; level < 8; level++) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      levels.push(
        `${name}: &${name} [${Array.from({ length: 10 }, () => `*${previous}`).join(',')}]`,
      );
    }
    const error = await refusal(crdsOfText(levels.join('\n'), 'bomb.yaml'));
    expect(error.code).toBe('ERR_ENVTEST_CRD_INVALID');
    expect(error.message).toContain('bomb.yaml document 1');
  });

  it('points webhook conversions at the serving when asked', async () => {
    const webhook = crd('converts', 'example.com', {
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: true, storage: false },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: { service: { name: 's', namespace: 'n', path: '/convert' } },
        },
      },
    });
    const [found] = await readCrds({
      objects: [webhook as never],
      conversion: { serving: { port: 9443, caBundle: 'Q0E=' } as never },
    });
    expect(found?.crd.spec.conversion?.webhook?.clientConfig).toEqual({
      url: 'https://127.0.0.1:9443/convert',
      caBundle: 'Q0E=',
    });
  });
});

describe('checkCrdSource', () => {
  it.each([
    [[], /the source must be an object/],
    [{ path: ['x'] }, /unknown option "path"/],
    [{ paths: 'config/crd' }, /paths must be an array/],
    [{ paths: [''] }, /paths must be an array/],
    [{ objects: [1] }, /objects must be an array/],
    [{ errorIfPathMissing: 'no' }, /errorIfPathMissing must be true or false/],
    [{ timeoutMs: -5 }, /timeoutMs must be a number of milliseconds above 0/],
    [{ conversion: { serving: {} } }, /conversion.serving must be a WebhookServing/],
    [{ conversion: { serving: { port: 1, caBundle: '' }, port: 70_000 } }, /conversion.port/],
  ])('refuses %j', (source, message) => {
    let error: unknown;
    try {
      checkCrdSource(source);
    } catch (caught) {
      error = caught;
    }
    expect(EnvtestError.isInstance(error) && error.code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
    expect((error as Error).message).toMatch(message);
  });
});
