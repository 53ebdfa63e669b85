import { describe, expect, it } from 'vitest';
import { emptyKubeconfig } from '../model/kubeconfig.js';
import { parseKubeconfig } from '../model/parse-kubeconfig.js';
import { compareBytes, encodeKubeconfig } from './encode-kubeconfig.js';
import { formatGoJson, formatKubeconfig } from './format-kubeconfig.js';

// Recorded from `kubectl config view` (v1.32) with no kubeconfig file at all.
const KUBECTL_EMPTY_JSON = `{
    "kind": "Config",
    "apiVersion": "v1",
    "preferences": {},
    "clusters": null,
    "users": null,
    "contexts": null,
    "current-context": ""
}
`;
const KUBECTL_EMPTY_YAML = `apiVersion: v1
clusters: null
contexts: null
current-context: ""
kind: Config
preferences: {}
users: null
`;

describe('formatKubeconfig', () => {
  it('prints the empty config exactly as kubectl does', () => {
    expect(formatKubeconfig(emptyKubeconfig(), 'json')).toBe(KUBECTL_EMPTY_JSON);
    expect(formatKubeconfig(emptyKubeconfig(), 'yaml')).toBe(KUBECTL_EMPTY_YAML);
  });

  it('uses client-go field order, always-present fields and sorted entries', () => {
    const { config } = parseKubeconfig(`
clusters:
- {name: zz, cluster: null}
- {name: aa, cluster: {disable-compression: true, server: s, tls-server-name: t}}
users:
- name: u
  user:
    exec: {command: c, apiVersion: client.authentication.k8s.io/v1beta1}
    token: t
    as-user-extra: {b: [x], a: []}
contexts:
- {name: c, context: {}}
extensions:
- {name: e, extension: {z: 1, a: {x: 2, b: 3}}}
`);
    const encoded = encodeKubeconfig(config);
    expect(Object.keys(encoded)).toEqual([
      'kind',
      'apiVersion',
      'preferences',
      'clusters',
      'users',
      'contexts',
      'current-context',
      'extensions',
    ]);
    expect(encoded.clusters).toEqual([
      { name: 'aa', cluster: { server: 's', 'tls-server-name': 't', 'disable-compression': true } },
      { name: 'zz', cluster: { server: '' } },
    ]);
    const [user] = encoded.users as [{ user: Record<string, unknown> }];
    expect(Object.keys(user.user)).toEqual(['token', 'as-user-extra', 'exec']);
    expect(Object.keys(user.user['as-user-extra'] as object)).toEqual(['a', 'b']);
    expect(user.user.exec).toEqual({
      command: 'c',
      args: null,
      env: null,
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      provideClusterInfo: false,
      interactiveMode: 'IfAvailable',
    });
    expect(encoded.contexts).toEqual([{ name: 'c', context: { cluster: '', user: '' } }]);
    expect(JSON.stringify(encoded.extensions)).toBe(
      '[{"name":"e","extension":{"a":{"b":3,"x":2},"z":1}}]',
    );
  });

  it('prints bytes as standard base64 and auth-provider config as kubectl', () => {
    const { config } = parseKubeconfig(`
users:
- {name: a, user: {client-key-data: S0VZAP8=, auth-provider: {name: oidc}}}
`);
    const [user] = encodeKubeconfig(config).users as [{ user: Record<string, unknown> }];
    expect(user.user).toEqual({
      'client-key-data': 'S0VZAP8=',
      'auth-provider': { name: 'oidc', config: null },
    });
  });

  it('escapes like Go encoding/json and indents four spaces', () => {
    expect(formatGoJson({ a: '<b>&\u2028', b: [] })).toBe(
      '{\n    "a": "\\u003cb\\u003e\\u0026\\u2028",\n    "b": []\n}\n',
    );
  });

  it('prints YAML with sorted keys, unindented lists and YAML 1.1 words quoted', () => {
    const { config } = parseKubeconfig(`
contexts:
- {name: "n", context: {namespace: "yes", cluster: on-prem, user: u}}
current-context: "n"
`);
    expect(formatKubeconfig(config, 'yaml')).toBe(`apiVersion: v1
clusters: null
contexts:
- context:
    cluster: on-prem
    namespace: "yes"
    user: u
  name: "n"
current-context: "n"
kind: Config
preferences: {}
users: null
`);
  });
});

describe('compareBytes', () => {
  it('orders by code point, as Go compares UTF-8 bytes', () => {
    const names = ['\u{1F600}', '\uFF21', 'b', 'B', 'a'];
    expect([...names].sort(compareBytes)).toEqual(['B', 'a', 'b', '\uFF21', '\u{1F600}']);
    expect(compareBytes('ab', 'a')).toBeGreaterThan(0);
    expect(compareBytes('a', 'a')).toBe(0);
  });
});
