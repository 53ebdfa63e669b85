import { describe, expect, it } from 'vitest';
import { KubeconfigError } from '../errors.js';
import type { Kubeconfig } from '../model/kubeconfig.js';
import { parseKubeconfig } from '../model/parse-kubeconfig.js';
import { createTempFiles } from '../testing/temp-files.js';
import { cleanInstallHint, resolveConfig } from './resolve-config.js';

function kubeconfig(yaml: string): Kubeconfig {
  return parseKubeconfig(yaml, 'test.yaml').config;
}

function failure(run: () => unknown): KubeconfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof KubeconfigError) return error;
    throw error;
  }
  throw new Error('expected a KubeconfigError');
}

const secureConfig = kubeconfig(`
clusters:
- name: prod
  cluster:
    server: https://prod.example:6443
    certificate-authority-data: Q0E=
    tls-server-name: api.prod
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: foo, other: bar}
- name: plain
  cluster: {server: "http://plain.example:8080"}
- name: bare
  cluster: {server: "plain.example:6443"}
users:
- name: alice
  user: {token: alice-token, as: bob, as-groups: [g1, g2], as-user-extra: {scope: [a, b]}}
- name: certs
  user: {client-certificate-data: Q0VSVA==, client-key-data: S0VZ}
- name: plugin
  user: {exec: {command: aws, apiVersion: client.authentication.k8s.io/v1beta1, installHint: "\\x1b[1mbold\\x1b[0m\\nnext"}}
contexts:
- name: prod
  context: {cluster: prod, user: alice, namespace: team}
- name: plain
  context: {cluster: plain, user: alice}
- name: bare
  context: {cluster: bare, user: certs}
current-context: prod
`);

describe('resolveConfig', () => {
  it('resolves the current context with its cluster, user and namespace', () => {
    const resolved = resolveConfig(secureConfig);
    expect(resolved).toMatchObject({
      server: 'https://prod.example:6443',
      contextName: 'prod',
      clusterName: 'prod',
      userName: 'alice',
      namespace: 'team',
      namespaceExplicit: true,
      auth: { kind: 'token', token: 'alice-token' },
      tls: { serverName: 'api.prod', insecure: false },
      impersonation: { user: 'bob', groups: ['g1', 'g2'] },
    });
    expect(Buffer.from(resolved.tls.caData!).toString()).toBe('CA');
    expect(resolved.impersonation?.extra.get('scope')).toEqual(['a', 'b']);
  });

  it('sends no credential or TLS identity to an http or scheme-less server, but keeps impersonation', () => {
    const plain = resolveConfig(secureConfig, { context: 'plain' });
    expect(plain.auth).toEqual({ kind: 'none' });
    expect(plain.tls).toEqual({ insecure: false });
    expect(plain.impersonation?.user).toBe('bob');
    const bare = resolveConfig(secureConfig, { context: 'bare' });
    expect(bare.server).toBe('plain.example:6443');
    expect(bare.tls.certData).toBeUndefined();
  });

  it('defaults the namespace to "default" and strips kubectl prefixes from an override', () => {
    expect(resolveConfig(secureConfig, { context: 'plain' }).namespace).toBe('default');
    expect(resolveConfig(secureConfig, { context: 'plain' }).namespaceExplicit).toBe(false);
    expect(resolveConfig(secureConfig, { namespace: 'Namespaces/foo' }).namespace).toBe('foo');
    expect(resolveConfig(secureConfig, { namespace: 'ns/bar' }).namespace).toBe('bar');
  });

  it('reports explicitly requested names that do not exist, user first', () => {
    expect(
      failure(() => resolveConfig(secureConfig, { user: 'nobody', context: 'nowhere' })).message,
    ).toBe('auth info "nobody" does not exist');
    const context = failure(() =>
      resolveConfig(secureConfig, { context: 'nowhere', cluster: 'none' }),
    );
    expect(context.message).toBe('context "nowhere" does not exist');
    expect(context.code).toBe('ERR_CONFIG_NOT_FOUND');
    expect(failure(() => resolveConfig(secureConfig, { cluster: 'none' })).message).toBe(
      'cluster "none" does not exist',
    );
  });

  it('reports a current-context naming a missing context (client-go TestCreateMissingContext)', () => {
    const config = kubeconfig('current-context: not-present\n');
    const error = failure(() => resolveConfig(config, { server: 'http://localhost:8080' }));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain('context was not found for specified context: not-present');
  });

  it('gives client-go empty-config error when nothing is configured', () => {
    const error = failure(() => resolveConfig(kubeconfig('')));
    expect(error.code).toBe('ERR_CONFIG_EMPTY');
    expect(error.message).toBe(
      'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
    );
  });

  it('uses a server override on an empty config (client-go A7)', () => {
    expect(resolveConfig(kubeconfig(''), { server: 'http://localhost:8080' }).server).toBe(
      'http://localhost:8080',
    );
  });

  it('clears the file CA when insecure is overridden, and the CA data when a CA file is', () => {
    const insecure = resolveConfig(secureConfig, { insecureSkipTlsVerify: true });
    expect(insecure.tls).toMatchObject({ insecure: true });
    expect(insecure.tls.caData).toBeUndefined();
    expect(insecure.tls.caFile).toBeUndefined();
    const files = createTempFiles();
    try {
      const ca = files.write('ca.pem', 'x');
      const withCa = resolveConfig(secureConfig, { certificateAuthority: ca });
      expect(withCa.tls).toMatchObject({ caFile: ca, insecure: false });
      expect(withCa.tls.caData).toBeUndefined();
    } finally {
      files.cleanup();
    }
  });

  it('clears tls-server-name when only --server is overridden, keeps an explicit one', () => {
    expect(
      resolveConfig(secureConfig, { server: 'https://other:6443' }).tls.serverName,
    ).toBeUndefined();
    expect(
      resolveConfig(secureConfig, { server: 'https://other:6443', tlsServerName: 'api.other' }).tls
        .serverName,
    ).toBe('api.other');
  });

  it('keeps token and tokenFile together; the transport lets the file win (client-go A9)', () => {
    const config = kubeconfig(`
clusters: [{name: c, cluster: {server: "https://c"}}]
users: [{name: u, user: {token: expected, tokenFile: /var/token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`);
    expect(resolveConfig(config).auth).toEqual({
      kind: 'token',
      token: 'expected',
      tokenFile: '/var/token',
    });
  });

  it('rejects an unsupported proxy scheme and accepts http, https and socks5', () => {
    for (const [proxy, ok] of [
      ['socks5://example.com', true],
      ['https://example.com', true],
      ['http://example.com', true],
      ['socks6://example.com', false],
      ['example.com', false],
      ['chewbacca@example.com', false],
    ] as const) {
      const config = kubeconfig(`
clusters: [{name: c, cluster: {server: "https://c", proxy-url: "${proxy}"}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`);
      if (ok) expect(resolveConfig(config).proxyUrl).toBe(proxy);
      else
        expect(failure(() => resolveConfig(config)).message).toContain(
          `invalid 'proxy-url' "${proxy}"`,
        );
    }
  });

  it('refuses token plus basic auth, naming both methods and never a value', () => {
    const config = kubeconfig(`
clusters: [{name: c, cluster: {server: "https://c"}}]
users: [{name: u, user: {token: sekrit-token, username: me, password: sekrit-password}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`);
    const error = failure(() => resolveConfig(config));
    expect(error.message).toContain(
      'more than one authentication method found for u; found [token basicAuth]',
    );
    expect(error.message).not.toContain('sekrit');
  });

  it('lists every problem of a user and cluster at once', () => {
    const config = kubeconfig(`
clusters: [{name: c, cluster: {certificate-authority: /missing/ca, certificate-authority-data: Q0E=}}]
users:
- name: u
  user:
    client-certificate-data: Q0U=
    as-groups: [g]
    exec: {command: "", apiVersion: "", env: [{name: "", value: x}], interactiveMode: Sometimes}
    auth-provider: {name: oidc}
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`);
    const error = failure(() => resolveConfig(config));
    expect(error.problems).toEqual([
      'client-key-data or client-key must be specified for u to use the clientCert authentication method.',
      'authProvider cannot be provided in combination with an exec plugin for u',
      'command must be specified for u to use exec authentication plugin',
      'apiVersion must be specified for u to use exec authentication plugin',
      'env variable name must be specified for u to use exec authentication plugin',
      'invalid interactiveMode for u: "Sometimes"',
      'requesting uid, groups or user-extra for u without impersonating a user',
      'no server found for cluster "c"',
      'certificate-authority-data and certificate-authority are both specified for c. certificate-authority-data will override.',
      'unable to read certificate-authority /missing/ca for c due to no such file or directory',
    ]);
    expect(error.message.startsWith('invalid configuration: [')).toBe(true);
  });

  it('requires interactiveMode for v1 exec plugins, defaults it for v1beta1', () => {
    const v1 = kubeconfig(`
clusters: [{name: c, cluster: {server: "https://c"}}]
users: [{name: u, user: {exec: {command: x, apiVersion: client.authentication.k8s.io/v1}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`);
    expect(failure(() => resolveConfig(v1)).message).toContain(
      'interactiveMode must be specified for u',
    );
    const plugin = resolveConfig(secureConfig, { user: 'plugin' });
    expect(plugin.auth).toMatchObject({
      kind: 'exec',
      exec: { command: 'aws', interactiveMode: 'IfAvailable' },
    });
  });

  it('hands the cluster exec extension to exec plugins and cleans the install hint', () => {
    const plugin = resolveConfig(secureConfig, { user: 'plugin' });
    if (plugin.auth.kind !== 'exec') throw new Error('expected exec');
    expect(plugin.auth.clusterExtension).toEqual({ audience: 'foo', other: 'bar' });
    expect(plugin.auth.exec.installHint).toBe('U+001B[1mboldU+001B[0m\nnext');
  });

  it('replaces both certificate path and data when a client cert or key is overridden', () => {
    const files = createTempFiles();
    try {
      const cert = files.write('c.pem', 'c');
      const key = files.write('k.pem', 'k');
      const resolved = resolveConfig(secureConfig, {
        context: 'prod',
        user: 'certs',
        clientCertificate: cert,
        clientKey: key,
      });
      expect(resolved.tls).toMatchObject({ certFile: cert, keyFile: key });
      expect(resolved.tls.certData).toBeUndefined();
      expect(resolved.tls.keyData).toBeUndefined();
    } finally {
      files.cleanup();
    }
  });

  it('parses the request timeout override', () => {
    expect(resolveConfig(secureConfig, { requestTimeout: '5' }).timeoutMs).toBe(5000);
    expect(resolveConfig(secureConfig, { requestTimeout: '1m30s' }).timeoutMs).toBe(90_000);
    expect(failure(() => resolveConfig(secureConfig, { requestTimeout: 'soon' })).code).toBe(
      'ERR_CONFIG_INVALID',
    );
    expect(resolveConfig(secureConfig, { requestTimeout: '1000h' }).timeoutMs).toBe(3_600_000_000);
    expect(failure(() => resolveConfig(secureConfig, { requestTimeout: '2562048h' })).message).toBe(
      'invalid --request-timeout: longer than the longest duration, 2562047h47m16.854775807s',
    );
  });

  it('records where an auth-provider user came from, for writing refreshed tokens back', () => {
    const loadedShape = {
      config: kubeconfig(`
clusters: [{name: c, cluster: {server: "https://c"}}]
users: [{name: u, user: {auth-provider: {name: oidc, config: {id-token: x}}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`),
      origins: {
        clusters: new Map(),
        users: new Map([['u', '/home/me/.kube/config']]),
        contexts: new Map(),
      },
      files: [],
      precedence: { explicitPath: undefined, files: [], fromEnv: false, defaultFile: '' },
    };
    expect(resolveConfig(loadedShape).auth).toMatchObject({
      kind: 'auth-provider',
      name: 'oidc',
      userName: 'u',
      origin: '/home/me/.kube/config',
    });
  });

  it('strips query and fragment from a server with a path, keeps host:port verbatim', () => {
    const config = (server: string) =>
      kubeconfig(
        `clusters: [{name: c, cluster: {server: "${server}"}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n`,
      );
    expect(resolveConfig(config('https://anything.com:8080/foo/bar?x=1#y')).server).toBe(
      'https://anything.com:8080/foo/bar',
    );
    expect(resolveConfig(config('anything.com:8080')).server).toBe('anything.com:8080');
    expect(resolveConfig(config('anything')).server).toBe('anything');
  });
});

describe('cleanInstallHint', () => {
  it('keeps tabs and newlines, escapes other control characters (client-go A15)', () => {
    expect(cleanInstallHint('a\tb\x1b[1mcontrol chars\x1b[0m\nand a newline')).toBe(
      'a\tbU+001B[1mcontrol charsU+001B[0m\nand a newline',
    );
  });
});
