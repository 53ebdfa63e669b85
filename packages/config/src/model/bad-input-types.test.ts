import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectParseError, expectParsed, parseOutcome } from './__fixtures__/bad-input.js';

/** Property runs and big inputs take seconds on a busy machine; 5 s is too tight. */
const SLOW_TEST_TIMEOUT = 60_000;

// Wrong types for every field, and duplicate names. kubectl decodes YAML into JSON and then
// into typed Go structs, so a value of the wrong JSON type is an error wherever it is; every
// case of the table below fails with `kubectl config view` too, and each null is accepted
// (checked with kubectl 1.32 on all 379 cases).

type Expected = 'string' | 'boolean' | 'list' | 'mapping';
type Step = string | number;

/** Every typed position of a kubeconfig, as a path from the document root. */
const FIELDS: [path: Step[], expected: Expected][] = [
  [['apiVersion'], 'string'],
  [['kind'], 'string'],
  [['current-context'], 'string'],
  [['preferences'], 'mapping'],
  [['preferences', 'colors'], 'boolean'],
  [['preferences', 'extensions'], 'list'],
  [['clusters'], 'list'],
  [['users'], 'list'],
  [['contexts'], 'list'],
  [['extensions'], 'list'],
  [['extensions', 0], 'mapping'],
  [['extensions', 0, 'name'], 'string'],
  [['clusters', 0], 'mapping'],
  [['clusters', 0, 'name'], 'string'],
  [['clusters', 0, 'cluster'], 'mapping'],
  ...['server', 'tls-server-name', 'certificate-authority', 'certificate-authority-data']
    .concat(['proxy-url'])
    .map((key): [Step[], Expected] => [['clusters', 0, 'cluster', key], 'string']),
  [['clusters', 0, 'cluster', 'insecure-skip-tls-verify'], 'boolean'],
  [['clusters', 0, 'cluster', 'disable-compression'], 'boolean'],
  [['clusters', 0, 'cluster', 'extensions'], 'list'],
  [['clusters', 0, 'cluster', 'extensions', 0, 'name'], 'string'],
  [['users', 0], 'mapping'],
  [['users', 0, 'name'], 'string'],
  [['users', 0, 'user'], 'mapping'],
  ...['client-certificate', 'client-certificate-data', 'client-key', 'client-key-data']
    .concat(['token', 'tokenFile', 'as', 'as-uid', 'username', 'password'])
    .map((key): [Step[], Expected] => [['users', 0, 'user', key], 'string']),
  [['users', 0, 'user', 'as-groups'], 'list'],
  [['users', 0, 'user', 'as-groups', 0], 'string'],
  [['users', 0, 'user', 'as-user-extra'], 'mapping'],
  [['users', 0, 'user', 'as-user-extra', 'reason'], 'list'],
  [['users', 0, 'user', 'as-user-extra', 'reason', 0], 'string'],
  [['users', 0, 'user', 'auth-provider'], 'mapping'],
  [['users', 0, 'user', 'auth-provider', 'name'], 'string'],
  [['users', 0, 'user', 'auth-provider', 'config'], 'mapping'],
  [['users', 0, 'user', 'auth-provider', 'config', 'id-token'], 'string'],
  [['users', 0, 'user', 'exec'], 'mapping'],
  ...['command', 'apiVersion', 'installHint', 'interactiveMode'].map((key): [Step[], Expected] => [
    ['users', 0, 'user', 'exec', key],
    'string',
  ]),
  [['users', 0, 'user', 'exec', 'args'], 'list'],
  [['users', 0, 'user', 'exec', 'args', 0], 'string'],
  [['users', 0, 'user', 'exec', 'env'], 'list'],
  [['users', 0, 'user', 'exec', 'env', 0], 'mapping'],
  [['users', 0, 'user', 'exec', 'env', 0, 'name'], 'string'],
  [['users', 0, 'user', 'exec', 'env', 0, 'value'], 'string'],
  [['users', 0, 'user', 'exec', 'provideClusterInfo'], 'boolean'],
  [['users', 0, 'user', 'extensions'], 'list'],
  [['contexts', 0], 'mapping'],
  [['contexts', 0, 'name'], 'string'],
  [['contexts', 0, 'context'], 'mapping'],
  [['contexts', 0, 'context', 'cluster'], 'string'],
  [['contexts', 0, 'context', 'user'], 'string'],
  [['contexts', 0, 'context', 'namespace'], 'string'],
  [['contexts', 0, 'context', 'extensions'], 'list'],
];

/** Values of every other type; `yes`/`on` are YAML 1.1 booleans, as in kubectl. */
const WRONG_VALUES: Record<Expected, [yaml: string, kind: string][]> = {
  string: [
    ['42', 'a number'],
    ['4.5', 'a number'],
    ['0x1F', 'a number'],
    ['true', 'a boolean'],
    ['yes', 'a boolean'],
    ['[a]', 'a list'],
    ['{a: b}', 'a mapping'],
  ],
  boolean: [
    ['"true"', 'a string'],
    ['maybe', 'a string'],
    ['1', 'a number'],
    ['[true]', 'a list'],
    ['{a: true}', 'a mapping'],
  ],
  list: [
    ['text', 'a string'],
    ['42', 'a number'],
    ['false', 'a boolean'],
    ['{a: b}', 'a mapping'],
  ],
  mapping: [
    ['text', 'a string'],
    ['42', 'a number'],
    ['on', 'a boolean'],
    ['[a]', 'a list'],
  ],
};

/** documentWith builds flow YAML with `value` at `path` (lists hold one item). */
function documentWith(path: readonly Step[], value: string): string {
  const [step, ...rest] = path;
  if (step === undefined) return value;
  const inner = documentWith(rest, value);
  return typeof step === 'number' ? `[${inner}]` : `{${JSON.stringify(step)}: ${inner}}`;
}

/** fieldName is how the decoder names a position: `users[0].user.exec.env[0].name`. */
function fieldName(path: readonly Step[]): string {
  if (path.length === 0) return 'the document';
  return path
    .map((step, index) => (typeof step === 'number' ? `[${step}]` : index ? `.${step}` : step))
    .join('');
}

const cases = FIELDS.flatMap(([path, expected]) =>
  WRONG_VALUES[expected].map(([yaml, kind]) => [fieldName(path), yaml, expected, kind, path]),
) as [string, string, Expected, string, Step[]][];

describe('wrong types', { timeout: SLOW_TEST_TIMEOUT }, () => {
  it.each(cases)('%s: %s is rejected (expected %s, got %s)', (name, yaml, expected, kind, path) => {
    const error = expectParseError(documentWith(path, yaml));
    expect(error.code).toBe('ERR_CONFIG_PARSE');
    expect(error.message).toBe(
      `error loading config file "bad-input.yaml": ${name} must be a ${expected}, not ${kind}`,
    );
  });

  it.each(FIELDS.map(([path]) => [fieldName(path), path] as const))(
    '%s: null means not set',
    (_, path) => {
      expectParsed(documentWith(path, 'null'));
      expectParsed(documentWith(path, '~'));
    },
  );

  it('rejects a wrong type with the same message from JSON as from YAML', () => {
    const json = '{"users": [{"name": "u", "user": {"exec": {"args": ["a", 7]}}}]}';
    expect(expectParseError(json).message).toContain('users[0].user.exec.args[1] must be a string');
  });

  it('rejects certificate data that is not standard padded base64', () => {
    for (const value of ['not base64!', 'Q0E', 'Q0E=x', '-_-_', 'Q0E=Q0E=']) {
      const error = expectParseError(
        documentWith(
          ['clusters', 0, 'cluster', 'certificate-authority-data'],
          JSON.stringify(value),
        ),
      );
      expect(error.message).toContain('certificate-authority-data is not valid base64');
    }
  });

  it('keeps YAML 1.1 booleans and quoted numbers as kubectl does', () => {
    const config = expectParsed(
      'clusters: [{name: "1", cluster: {server: "42", insecure-skip-tls-verify: yes, disable-compression: off}}]',
    );
    expect(config.clusters.get('1')).toEqual({
      server: '42',
      insecureSkipTlsVerify: true,
      disableCompression: false,
    });
  });
});

describe('duplicate names', { timeout: SLOW_TEST_TIMEOUT }, () => {
  const lists: [at: string, document: (name: string) => string][] = [
    ['clusters', (name) => `{clusters: [{name: ${name}}, {name: ${name}}]}`],
    ['users', (name) => `{users: [{name: ${name}}, {name: ${name}}]}`],
    ['contexts', (name) => `{contexts: [{name: ${name}}, {name: ${name}}]}`],
    [
      'extensions',
      (name) => `{extensions: [{name: ${name}, extension: 1}, {name: ${name}, extension: 2}]}`,
    ],
    [
      'preferences.extensions',
      (name) =>
        `{preferences: {extensions: [{name: ${name}, extension: 1}, {name: ${name}, extension: 2}]}}`,
    ],
    [
      'clusters[0].cluster.extensions',
      (name) =>
        `{clusters: [{name: c, cluster: {extensions: [{name: ${name}, extension: 1}, {name: ${name}, extension: 2}]}}]}`,
    ],
    [
      'users[0].user.extensions',
      (name) =>
        `{users: [{name: u, user: {extensions: [{name: ${name}, extension: 1}, {name: ${name}, extension: 2}]}}]}`,
    ],
    [
      'contexts[0].context.extensions',
      (name) =>
        `{contexts: [{name: x, context: {extensions: [{name: ${name}, extension: 1}, {name: ${name}, extension: 2}]}}]}`,
    ],
  ];

  it.each(lists)('in %s: the error names the file and the name', (at, document) => {
    const error = expectParseError(document('twice'), '/home/me/.kube/config');
    expect(error.code).toBe('ERR_CONFIG_DUPLICATE_NAME');
    expect(error.message).toBe(
      `error loading config file "/home/me/.kube/config": duplicate name "twice" in ${at}`,
    );
    expect(error.path).toBe('/home/me/.kube/config');
    expect(error.entry).toBe('twice');
  });

  it('lets a later extension replace a null one of the same name, as client-go does', () => {
    expect(
      expectParsed('extensions: [{name: a}, {name: a, extension: 1}]').extensions.get('a'),
    ).toBe(1);
  });

  it('counts two unnamed entries as a duplicate of ""', () => {
    const error = expectParseError('clusters: [{cluster: {server: a}}, {cluster: {server: b}}]');
    expect(error.message).toContain('duplicate name "" in clusters');
  });

  it('never quotes the entries in the message, unlike kubectl', () => {
    const text = 'users: [{name: u, user: {token: tok-123}}, {name: u, user: {password: pw-456}}]';
    const error = expectParseError(text);
    expect(`${String(error)} ${error.problems.join()}`).not.toMatch(/tok-123|pw-456/);
  });

  it('a name is a duplicate only in its own list, and the first repeat is reported', () => {
    const names = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 7 });
    fc.assert(
      fc.property(names, names, (clusterNames, userNames) => {
        const list = (key: string, values: string[]) =>
          `${key}: [${values.map((name) => `{name: ${name}}`).join(', ')}]`;
        const outcome = parseOutcome(
          `{${list('clusters', clusterNames)}, ${list('users', userNames)}}`,
        );
        const firstRepeat = (values: string[]) =>
          values.find((name, index) => values.indexOf(name) < index);
        const repeat = firstRepeat(clusterNames) ?? firstRepeat(userNames);
        expect(outcome.ok).toBe(repeat === undefined);
        if (!outcome.ok) expect(outcome.error.entry).toBe(repeat);
        if (outcome.ok) expect([...outcome.file.config.clusters.keys()]).toEqual(clusterNames);
      }),
      { seed: 20_240_601, numRuns: 500 },
    );
  });
});
