import { describe, expect, it } from 'vitest';
import { KubeconfigError } from '../errors.js';
import { decodeStandardBase64 } from './decode-kubeconfig.js';
import { parseKubeconfig } from './parse-kubeconfig.js';

const everyField = `
apiVersion: v1
kind: Config
preferences:
  colors: true
  extensions:
  - name: pref-ext
    extension: {x: 1}
clusters:
- name: full
  cluster:
    server: https://api.example:6443
    tls-server-name: api.internal
    insecure-skip-tls-verify: false
    certificate-authority: ca.pem
    certificate-authority-data: Q0E=
    proxy-url: socks5://proxy:1080
    disable-compression: true
    unknown-field: ignored
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: sts}
users:
- name: everything
  user:
    client-certificate: cert.pem
    client-certificate-data: Q0VSVA==
    client-key: key.pem
    client-key-data: S0VZ
    token: the-token
    tokenFile: /var/token
    as: admin
    as-uid: uid-1
    as-groups: [system:masters, devs]
    as-user-extra: {scopes: [read, write]}
    username: bob
    password: hunter2
    auth-provider:
      name: oidc
      config: {client-id: k, id-token: abc}
    exec:
      command: aws
      args: [eks, get-token]
      env: [{name: AWS_PROFILE, value: prod}]
      apiVersion: client.authentication.k8s.io/v1
      installHint: install aws
      provideClusterInfo: true
      interactiveMode: Never
    extensions:
    - name: user-ext
      extension: [1, 2]
contexts:
- name: main
  context: {cluster: full, user: everything, namespace: apps, extensions: [{name: c-ext, extension: "s"}]}
current-context: main
extensions:
- name: top
  extension: {nested: {deep: true}}
`;

describe('parseKubeconfig', () => {
  it('decodes every kubeconfig v1 field', () => {
    const { config } = parseKubeconfig(everyField, 'every.yaml');
    expect(config.preferences.colors).toBe(true);
    expect(config.preferences.extensions?.get('pref-ext')).toEqual({ x: 1 });
    const cluster = config.clusters.get('full');
    expect(cluster).toMatchObject({
      server: 'https://api.example:6443',
      tlsServerName: 'api.internal',
      insecureSkipTlsVerify: false,
      certificateAuthority: 'ca.pem',
      proxyUrl: 'socks5://proxy:1080',
      disableCompression: true,
    });
    expect(Buffer.from(cluster!.certificateAuthorityData!).toString()).toBe('CA');
    expect(cluster?.extensions?.get('client.authentication.k8s.io/exec')).toEqual({
      audience: 'sts',
    });
    expect(cluster).not.toHaveProperty('unknown-field');
    const user = config.users.get('everything')!;
    expect(user).toMatchObject({
      clientCertificate: 'cert.pem',
      clientKey: 'key.pem',
      token: 'the-token',
      tokenFile: '/var/token',
      impersonate: 'admin',
      impersonateUid: 'uid-1',
      impersonateGroups: ['system:masters', 'devs'],
      username: 'bob',
      password: 'hunter2',
      exec: {
        command: 'aws',
        args: ['eks', 'get-token'],
        env: [{ name: 'AWS_PROFILE', value: 'prod' }],
        apiVersion: 'client.authentication.k8s.io/v1',
        installHint: 'install aws',
        provideClusterInfo: true,
        interactiveMode: 'Never',
      },
    });
    expect(Buffer.from(user.clientCertificateData!).toString()).toBe('CERT');
    expect(Buffer.from(user.clientKeyData!).toString()).toBe('KEY');
    expect(user.impersonateUserExtra?.get('scopes')).toEqual(['read', 'write']);
    expect(user.authProvider?.name).toBe('oidc');
    expect(Object.fromEntries(user.authProvider!.config)).toEqual({
      'client-id': 'k',
      'id-token': 'abc',
    });
    expect(user.extensions?.get('user-ext')).toEqual([1, 2]);
    expect(config.contexts.get('main')).toEqual({
      cluster: 'full',
      user: 'everything',
      namespace: 'apps',
      extensions: new Map([['c-ext', 's']]),
    });
    expect(config.currentContext).toBe('main');
    expect(config.extensions.get('top')).toEqual({ nested: { deep: true } });
  });

  it('reads JSON as well as YAML', () => {
    const { config } = parseKubeconfig(
      JSON.stringify({
        clusters: [
          { name: 'j', cluster: { server: 'https://j', 'insecure-skip-tls-verify': true } },
        ],
        'current-context': 'x',
      }),
    );
    expect(config.clusters.get('j')).toEqual({ server: 'https://j', insecureSkipTlsVerify: true });
    expect(config.currentContext).toBe('x');
  });

  it('reads YAML 1.1 scalars as kubectl does', () => {
    const { config } = parseKubeconfig(`
clusters:
- name: c
  cluster: {server: "https://c", insecure-skip-tls-verify: yes, disable-compression: off}
contexts:
- name: "1:20"
  context: {cluster: c, user: e1, namespace: 2001-12-14}
extensions:
- name: numbers
  extension: {octal: 0644, hex: 0x1F, go-octal: 0o17, under: 1_000, sexagesimal: 1:20, word: e1}
`);
    expect(config.clusters.get('c')).toMatchObject({
      insecureSkipTlsVerify: true,
      disableCompression: false,
    });
    expect(config.contexts.get('1:20')).toMatchObject({ user: 'e1', namespace: '2001-12-14' });
    expect(config.extensions.get('numbers')).toEqual({
      octal: 420,
      hex: 31,
      'go-octal': 15,
      under: 1000,
      sexagesimal: '1:20',
      word: 'e1',
    });
  });

  it('defaults exec interactiveMode only for v1beta1 and v1alpha1', () => {
    const { config } = parseKubeconfig(`
users:
- {name: beta, user: {exec: {command: a, apiVersion: client.authentication.k8s.io/v1beta1}}}
- {name: alpha, user: {exec: {command: a, apiVersion: client.authentication.k8s.io/v1alpha1}}}
- {name: v1, user: {exec: {command: a, apiVersion: client.authentication.k8s.io/v1}}}
`);
    expect(config.users.get('beta')?.exec?.interactiveMode).toBe('IfAvailable');
    expect(config.users.get('alpha')?.exec?.interactiveMode).toBe('IfAvailable');
    expect(config.users.get('v1')?.exec?.interactiveMode).toBeUndefined();
  });

  it('treats null stanzas and missing keys as empty entries', () => {
    const { config } = parseKubeconfig(
      'clusters:\n- name: a\n  cluster: null\n- name: b\nusers: null\n',
    );
    expect(config.clusters.get('a')).toEqual({});
    expect(config.clusters.get('b')).toEqual({});
    expect(config.users.size).toBe(0);
  });

  it('rejects wrong types and bad base64 with the field path, never the value', () => {
    const wrongType = () =>
      parseKubeconfig('clusters:\n- name: a\n  cluster:\n    server: 123\n', 'f.yaml');
    expect(wrongType).toThrow(KubeconfigError);
    expect(wrongType).toThrow('clusters[0].cluster.server must be a string, not a number');
    const badData = () =>
      parseKubeconfig('users:\n- name: u\n  user:\n    client-key-data: "sekrit!!"\n', 'f.yaml');
    expect(badData).toThrow('users[0].user.client-key-data is not valid base64');
    expect(badData).not.toThrow('sekrit');
  });

  it('lets the last duplicate key in a mapping win, as yaml.v2 does', () => {
    const { config } = parseKubeconfig(
      'clusters:\n- name: a\n  cluster:\n    server: https://x\n    server: https://y\n',
    );
    expect(config.clusters.get('a')?.server).toBe('https://y');
  });
});

describe('kubectl quirks found by the differential suite', () => {
  it('replaces a null extension by a later one of the same name, but not the reverse', () => {
    const { config } = parseKubeconfig('extensions: [{name: a}, {name: a, extension: 1}]');
    expect(config.extensions.get('a')).toBe(1);
    expect(() => parseKubeconfig('extensions: [{name: a, extension: 1}, {name: a}]')).toThrow(
      'duplicate name "a" in extensions',
    );
  });

  it('accepts only the directives yaml.v2 accepts', () => {
    expect(
      parseKubeconfig('%YAML 1.1\n%TAG !e! tag:e.com,2000:\n---\ncurrent-context: a').config
        .currentContext,
    ).toBe('a');
    for (const [text, problem] of [
      ['%YAML 1.2\n---\na: 1', 'found incompatible YAML document'],
      ['%YAML 1.0\n---\na: 1', 'found incompatible YAML document'],
      ['%YAML 1.1\n%YAML 1.1\n---\na: 1', 'found duplicate %YAML directive'],
      ['%FOO bar\n---\na: 1', 'found unknown directive name'],
    ] as const) {
      expect(() => parseKubeconfig(text, 'f.yaml')).toThrow(
        `error loading config file "f.yaml": yaml: ${problem}`,
      );
    }
  });

  it('reads a !!binary scalar as the text of its bytes', () => {
    const { config } = parseKubeconfig(
      'users: [{name: a, user: {token: !!binary aGVsbG8=}}]\nextensions: [{name: e, extension: !!binary aGk=}]',
    );
    expect(config.users.get('a')?.token).toBe('hello');
    expect(config.extensions.get('e')).toBe('hi');
  });
});

describe('decodeStandardBase64', () => {
  it('accepts padded standard base64 with line breaks, rejects the rest', () => {
    expect(Buffer.from(decodeStandardBase64('Q0\nFD\r\nRVJU')!).toString()).toBe('CACERT');
    expect(decodeStandardBase64('Q0E')).toBeUndefined();
    expect(decodeStandardBase64('Q0E-')).toBeUndefined();
    expect(decodeStandardBase64('!!!')).toBeUndefined();
  });
});
