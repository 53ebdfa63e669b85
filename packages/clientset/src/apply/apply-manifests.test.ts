import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { caught } from '@k/test-utils';
import { DiscoveryClient } from '../discovery/discovery-client.js';
import { RestMapper } from '../discovery/rest-mapper.js';
import { DynamicClient } from '../dynamic/dynamic-client.js';
import { ClientsetError, ManifestError } from '../errors.js';
import { startRecordingServer, type RecordingServer } from '../__fixtures__/recording-server.js';
import { applyManifests, parseManifests } from './apply-manifests.js';

describe('parseManifests', () => {
  it('reads every document in order, skips empty ones and expands lists', async () => {
    const objects = await parseManifests(`
---
apiVersion: v1
kind: ConfigMap
metadata: { name: a }
data: { enabled: yes }
---
# only a comment
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Secret
    metadata: { name: b }
  - apiVersion: apps/v1
    kind: Deployment
    metadata: { name: c, namespace: other }
`);
    expect(objects.map((object) => `${object.kind}/${object.metadata?.name}`)).toEqual([
      'ConfigMap/a',
      'Secret/b',
      'Deployment/c',
    ]);
    // YAML 1.1, as kubectl reads manifests.
    expect(objects[0]?.data).toEqual({ enabled: true });
  });

  it('reads JSON too', async () => {
    expect(
      await parseManifests('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"}}'),
    ).toHaveLength(1);
  });

  it.each([
    ['apiVersion: v1\nkind: [', /^document 1 is not valid yaml/],
    [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n- a list\n',
      /^document 2 is not a kubernetes object/,
    ],
    ['kind: ConfigMap\nmetadata: {name: a}\n', /^document 1 is not a kubernetes object/],
    [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n',
      /^document 1 \(ConfigMap\) has no metadata.name/,
    ],
  ])('fails with ERR_CLIENTSET_MANIFEST naming the document: %j', async (text, message) => {
    let failure: unknown;
    try {
      await parseManifests(text);
    } catch (error) {
      failure = error;
    }
    expect(ClientsetError.isInstance(failure) && failure.code).toBe('ERR_CLIENTSET_MANIFEST');
    expect((failure as Error).message).toMatch(message);
  });

  it.each([
    ['JSON', (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`],
    [
      'block YAML',
      (depth: number) =>
        Array.from({ length: depth }, (_, level) => `\n${' '.repeat(2 + level)}a:`).join('') + ' 1',
    ],
  ])(
    'a manifest whose data nests 10,000 levels (%s) is a ManifestError saying so',
    async (_, nest) => {
      // The YAML parser recurses and runs out of stack long before: a typed error, not a RangeError.
      const failure = await caught(
        parseManifests(
          `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: ${nest(10_000)}\n`,
        ),
      );
      expect(ManifestError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ code: 'ERR_CLIENTSET_MANIFEST', document: 1 });
      expect((failure as Error).message).toMatch(
        /^document 1 is not valid yaml: yaml: line \d+, column \d+: nested too deeply$/,
      );
    },
  );
});

// The secret every case hides in the line the YAML parser stops at (or just before it).
const SECRET = 's3cr3t-hunter2';
const SECRET_MANIFEST_HEAD = `apiVersion: v1
kind: ConfigMap
metadata: { name: a }
---
apiVersion: v1
kind: Secret
metadata: { name: s }
stringData:
`;

describe('parseManifests keeps the text out of its errors', () => {
  it.each([
    ['an unclosed quote', `  password: "${SECRET}\n  other: x\n`, 11, 1],
    ['a nested compact mapping', `  password: ${SECRET}: x\n`, 9, 13],
    ['an unclosed flow sequence', `  password: [${SECRET}\n`, 10, 1],
    ['a block scalar header', `  password: |${SECRET}\n    x\n`, 9, 14],
    ['a bad escape', `  password: "\\q${SECRET}"\n`, 9, 14],
    ['an alias without its anchor', `  password: *${SECRET}\n`, 9, 13],
  ])(
    'a Secret with %s fails naming the document, line and column, never the value',
    async (_name, valueLine, line, column) => {
      const failure = await caught(parseManifests(SECRET_MANIFEST_HEAD + valueLine));
      expect((failure as Error).message).not.toContain(SECRET);
      expect(inspect(failure, { depth: Infinity })).not.toContain(SECRET);
      expect(ClientsetError.isInstance(failure) && failure.code).toBe('ERR_CLIENTSET_MANIFEST');
      expect(ManifestError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ document: 2, line, column });
      expect((failure as Error).message).toMatch(
        new RegExp(`^document 2 is not valid yaml: yaml: line ${line}, column ${column}: [A-Z]`),
      );
    },
  );
});

let server: RecordingServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** laughs is a ConfigMap whose anchors nest `depth` levels, each aliasing the last ten times. */
function laughs(name: string, depth: number): string {
  const lines = [`apiVersion: v1`, `kind: ConfigMap`, `metadata: { name: ${name} }`, `data:`];
  lines.push(`  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]`);
  for (let level = 1; level <= depth; level++) {
    lines.push(
      `  l${level}: &l${level} [${Array(10)
        .fill(`*l${level - 1}`)
        .join(', ')}]`,
    );
  }
  return `${lines.join('\n')}\n`;
}

// The recording fake server shows that nothing at all is sent (not even discovery): the
// manifests must fail while they are read.
describe('applyManifests refuses manifests that aliases blow up (recording fake server)', () => {
  it.each([
    ['nested anchors (billion laughs)', laughs('lol', 9)],
    [
      // 20 KB of text that would send 20 MB (999: the yaml library itself allows that many).
      'one large anchor aliased 999 times',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: wide }\ndata:\n  big: &big "${'x'.repeat(20_000)}"\n  copies: [${Array(999).fill('*big').join(', ')}]\n`,
    ],
    [
      'a thousand documents, each small enough alone',
      Array.from({ length: 1_100 }, (_, index) => laughs(`c${index}`, 2)).join('---\n'),
    ],
  ])(
    '%s: a typed error naming the document, and no request',
    async (_name, text) => {
      server = await startRecordingServer();
      const dynamic = new DynamicClient(
        server.client,
        new RestMapper(new DiscoveryClient(server.client)),
      );
      const failure = await caught(applyManifests(dynamic, text, { fieldManager: 'test' }));
      expect(ClientsetError.isInstance(failure) && failure.code).toBe('ERR_CLIENTSET_MANIFEST');
      expect(ManifestError.isInstance(failure)).toBe(true);
      expect((failure as Error).message).toMatch(/^document \d+ /);
      expect(server.requests).toHaveLength(0);
      // Bisecting a thousand documents' aliases takes seconds on a busy two-core machine.
    },
    60_000,
  );
});

describe('applyManifests checks waitForEstablished before sending anything (recording fake server)', () => {
  it.each([
    ['yes', 'a string'],
    [{ timeoutMs: -1 }, 'an object'],
    [{ timeoutMs: '5s' }, 'an object'],
  ])('waitForEstablished: %j fails with ERR_CLIENTSET_INVALID_ARGUMENT', async (value, got) => {
    server = await startRecordingServer();
    const dynamic = new DynamicClient(
      server.client,
      new RestMapper(new DiscoveryClient(server.client)),
    );
    const failure = await caught(
      applyManifests(dynamic, 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: a }\n', {
        fieldManager: 'test',
        waitForEstablished: value as never,
      }),
    );
    expect(ClientsetError.isInstance(failure) && failure.code).toBe(
      'ERR_CLIENTSET_INVALID_ARGUMENT',
    );
    expect((failure as Error).message).toBe(
      `applyManifests: options.waitForEstablished must be true, false or { timeoutMs } with a number of 0 or more, got ${got}`,
    );
    expect(server.requests).toHaveLength(0);
  });
});
