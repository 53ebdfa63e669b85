import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadKubeconfig } from '../load/load-kubeconfig.js';
import { resolveConfig } from '../resolve/resolve-config.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import { expectParsed } from './__fixtures__/bad-input.js';
import { parseSimpleYaml } from './parse-simple-yaml.js';

/** Property runs and big inputs take seconds on a busy machine; 5 s is too tight. */
const SLOW_TEST_TIMEOUT = 60_000;

// `__proto__`, `constructor` and `prototype` as names and keys at every level: they are data,
// kept as written, and no prototype is ever touched.

const DANGEROUS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'];

const prototypes = [Object.prototype, Array.prototype, Function.prototype, Map.prototype];
let snapshot: string[][];
beforeEach(() => {
  snapshot = prototypes.map((prototype) => Reflect.ownKeys(prototype).map(String).sort());
});
afterEach(() => {
  expect(prototypes.map((prototype) => Reflect.ownKeys(prototype).map(String).sort())).toEqual(
    snapshot,
  );
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
});

/** A payload that pollutes `Object.prototype` if merged naively into an object. */
const PAYLOAD = '{__proto__: {polluted: yes}, constructor: {prototype: {polluted: yes}}}';

/**
 * A kubeconfig that uses `key` everywhere a name or a free-form key can go. With `plugins`
 * false it leaves out exec and auth-provider, which may not be combined when resolving.
 */
function everywhere(key: string, plugins = true): string {
  const name = JSON.stringify(key);
  const extensions = `[{name: ${name}, extension: {${name}: ${PAYLOAD}, nested: [${PAYLOAD}]}}]`;
  return `
${name}: ${PAYLOAD}
preferences: {${name}: ${PAYLOAD}, extensions: ${extensions}}
clusters:
- name: ${name}
  ${name}: ${PAYLOAD}
  cluster: {server: "https://${key}.example", ${name}: ${PAYLOAD}, extensions: ${extensions}}
users:
- name: ${name}
  user:
    ${name}: ${PAYLOAD}
    token: token-of-${key}
    as: someone
    as-user-extra: {${name}: [extra-of-${key}]}
${plugins ? pluginsOf(key) : ''}    extensions: ${extensions}
contexts:
- name: ${name}
  context: {cluster: ${name}, user: ${name}, namespace: ns-of-${key}, extensions: ${extensions}}
current-context: ${name}
extensions: ${extensions}
`;
}

function pluginsOf(key: string): string {
  const name = JSON.stringify(key);
  return `    auth-provider: {name: oidc, config: {${name}: config-of-${key}}}
    exec:
      command: plugin
      apiVersion: client.authentication.k8s.io/v1
      env: [{name: ${name}, value: env-of-${key}}]
      ${name}: ${PAYLOAD}
`;
}

describe.each(DANGEROUS)('the key %s', { timeout: SLOW_TEST_TIMEOUT }, (key) => {
  it('is kept as data in every position', () => {
    const config = expectParsed(everywhere(key));
    expect(config.currentContext).toBe(key);
    expect([...config.clusters.keys()]).toEqual([key]);
    expect(config.clusters.get(key)?.server).toBe(`https://${key}.example`);
    const user = config.users.get(key)!;
    expect(user.token).toBe(`token-of-${key}`);
    expect(user.impersonateUserExtra).toEqual(new Map([[key, [`extra-of-${key}`]]]));
    expect(user.authProvider?.config).toEqual(new Map([[key, `config-of-${key}`]]));
    expect(user.exec?.env).toEqual([{ name: key, value: `env-of-${key}` }]);
    expect(config.contexts.get(key)).toMatchObject({ cluster: key, user: key });

    for (const extensions of [
      config.extensions,
      config.preferences.extensions,
      config.clusters.get(key)?.extensions,
      user.extensions,
      config.contexts.get(key)?.extensions,
    ]) {
      const extension = extensions?.get(key) as Record<string, unknown>;
      expect(Object.getPrototypeOf(extension)).toBe(Object.prototype);
      expect(Object.keys(extension)).toEqual([key, 'nested']);
      const payload = Object.getOwnPropertyDescriptor(extension, key)?.value as object;
      expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
      expect(Object.keys(payload)).toEqual(['__proto__', 'constructor']);
      // The `__proto__` key is an own data property, not the accessor: it holds the payload.
      expect(Object.getOwnPropertyDescriptor(payload, '__proto__')?.value).toEqual(
        JSON.parse('{"polluted": true}'),
      );
      expect(JSON.stringify(payload)).toBe(
        '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
      );
    }
  });

  it('survives JSON input, loading, merging and resolution', async () => {
    const files: TempFiles = createTempFiles();
    try {
      const first = files.write('first.yaml', everywhere(key, false));
      const second = files.write(
        'second.json',
        JSON.stringify({
          clusters: [{ name: key, cluster: { server: 'https://loser.example' } }],
          users: [{ name: 'other', user: { token: 'other' } }],
          ['__proto__']: { polluted: true },
        }),
      );
      const loaded = await loadKubeconfig({ env: { KUBECONFIG: `${first}:${second}` } });
      expect(loaded.config.clusters.get(key)?.server).toBe(`https://${key}.example`);
      expect(loaded.origins.clusters.get(key)).toBe(first);
      expect([...loaded.config.users.keys()]).toEqual([key, 'other']);
      const resolved = resolveConfig(loaded);
      expect(resolved).toMatchObject({ contextName: key, clusterName: key, userName: key });
      expect(resolved.namespace).toBe(`ns-of-${key}`);
      expect(resolved.auth).toEqual({ kind: 'token', token: `token-of-${key}` });
      expect(resolved.impersonation?.extra).toEqual(new Map([[key, [`extra-of-${key}`]]]));
    } finally {
      files.cleanup();
    }
  });
});

describe('block style, through the fast path', { timeout: SLOW_TEST_TIMEOUT }, () => {
  it.each(DANGEROUS)('keeps %s as data', (key) => {
    const text = `clusters:
- name: ${key}
  cluster:
    server: https://${key}.example
    ${key}: polluted
users:
- name: ${key}
  user:
    as-user-extra:
      ${key}:
      - extra
    auth-provider:
      name: oidc
      config:
        ${key}: config
contexts:
- name: ${key}
  context:
    cluster: ${key}
    user: ${key}
${key}:
  ${key}: polluted
  polluted: true
current-context: ${key}
`;
    expect(parseSimpleYaml(text)).toBeDefined();
    const config = expectParsed(text);
    expect(config.clusters.get(key)?.server).toBe(`https://${key}.example`);
    expect(config.users.get(key)?.impersonateUserExtra).toEqual(new Map([[key, ['extra']]]));
    expect(config.users.get(key)?.authProvider?.config).toEqual(new Map([[key, 'config']]));
    expect(config.contexts.get(key)).toMatchObject({ cluster: key, user: key });
    expect(config.currentContext).toBe(key);
  });
});

describe('random placement', { timeout: SLOW_TEST_TIMEOUT }, () => {
  // JSON values whose keys are mostly dangerous; built with defineProperty so the expected
  // value itself holds `__proto__` as an own key, as the parser must.
  const key = fc.constantFrom(...DANGEROUS, '__defineGetter__', 'valueOf', 'a', 'b');
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean(), fc.constant(null)),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map((entries) => ownObject(entries)),
    ),
  }));

  it('extension values round-trip exactly and pollute nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 4 }), (entries) => {
        const extension = ownObject(entries);
        const text = JSON.stringify({
          extensions: [{ name: '__proto__', extension }],
          users: [
            {
              name: 'constructor',
              user: { 'as-user-extra': ownObject(entries.map(([name]) => [name, ['x']])) },
            },
          ],
        });
        const config = expectParsed(text);
        expect(JSON.stringify(config.extensions.get('__proto__'))).toBe(JSON.stringify(extension));
        const extra = config.users.get('constructor')?.impersonateUserExtra;
        expect([...(extra?.keys() ?? [])]).toEqual([...new Set(entries.map(([name]) => name))]);
      }),
      { seed: 20_240_601, numRuns: 1000 },
    );
  });
});

function ownObject(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [name, entry] of entries) {
    Object.defineProperty(object, name, {
      value: entry,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}
