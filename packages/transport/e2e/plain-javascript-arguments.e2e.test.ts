import { MODULE_KINDS, runNodeProgram } from '@k/test-utils';
import { describe, expect, it } from 'vitest';

/**
 * Plain JavaScript callers of @k/transport's public entry points, as a user writes them: a
 * program run by node against the built package (ESM and CommonJS) that calls each entry point
 * with a missing or wrong-typed argument. Each must throw (or reject with) a `TransportError`
 * with code `ERR_TRANSPORT_INVALID_ARGUMENT` whose message names the entry point and says what
 * to pass — not a raw `TypeError` from deep inside, and not silently accept it.
 */

/** The entry points a plain caller imports, by the subpath each comes from. */
const IMPORTS: Readonly<Record<string, readonly string[]>> = {
  '@k/transport': ['createTransport', 'describeTransportStack'],
  '@k/transport/auth': [
    'BasicCredentialProvider',
    'BasicCredentialProviderFactory',
    'CachedTokenFile',
    'RemovedAuthProviderFactory',
    'SharedCredentialProviders',
    'TokenCredentialProvider',
    'TokenCredentialProviderFactory',
    'credentialProviderKind',
    'selectCredentialProviderFactory',
  ],
  '@k/transport/connection': [
    'ClientCertificateFiles',
    'NoProxy',
    'ServerConnector',
    'loadTlsOptions',
    'parseProxyUrl',
    'proxyForServer',
  ],
  '@k/transport/exec': [
    'ExecCredentialFileCache',
    'ExecCredentialProvider',
    'buildExecCredentialRequest',
    'createExecCredentialProviderFactory',
    'execClusterInfo',
    'execCredentialProviderFactory',
    'parseExecCredential',
  ],
  '@k/transport/oidc': [
    'OidcCredentialProvider',
    'createIdentityProviderDispatcher',
    'createOidcCredentialProviderFactory',
    'discoverTokenEndpoint',
    'idTokenExpiry',
    'isIdTokenValid',
    'oidcCredentialProviderFactory',
    'refreshIdToken',
  ],
};

/** [the call, as a plain JavaScript caller writes it; the entry point its message must name]. */
const CASES: readonly (readonly [string, string])[] = [
  ['createTransport()', 'createTransport'],
  ['createTransport(null)', 'createTransport'],
  ["createTransport('https://x')", 'createTransport'],
  ['createTransport({})', 'createTransport'],
  ['createTransport({ ...config, tls: undefined })', 'createTransport'],
  ["createTransport({ ...config, auth: 'token' })", 'createTransport'],
  ["createTransport(config, 'options')", 'createTransport'],
  ['createTransport(config, { connectTimeoutMs: -1 })', 'createTransport'],
  ['createTransport(config, { credentialProviderFactories: {} })', 'createTransport'],
  ["createTransport(config, { environment: 'x' })", 'createTransport'],
  ['createTransport(config, { now: 5 })', 'createTransport'],
  ['createTransport(config, { interceptors: {} })', 'createTransport'],
  [
    "createTransport(config, { interceptors: [{ name: 'x', position: 'nowhere', interceptor: (dispatch) => dispatch }] })",
    'createTransport',
  ],
  [
    "createTransport(config, { interceptors: [{ name: 'x', position: 'wire' }] })",
    'createTransport',
  ],
  ['describeTransportStack()', 'describeTransportStack'],
  ["describeTransportStack({ stack: 'a → b' })", 'describeTransportStack'],
  ['new ExecCredentialProvider()', 'ExecCredentialProvider'],
  ['new ExecCredentialProvider(tokenConfig)', 'ExecCredentialProvider'],
  [
    "new ExecCredentialProvider({ ...execConfig, auth: { kind: 'exec', exec: { apiVersion: 'client.authentication.k8s.io/v1' } } })",
    'ExecCredentialProvider',
  ],
  ["new ExecCredentialProvider(execConfig, { timeoutMs: '5000' })", 'ExecCredentialProvider'],
  ['new ExecCredentialProvider(execConfig, { timeoutMs: -1 })', 'ExecCredentialProvider'],
  ['new ExecCredentialProvider(execConfig, { cacheDirectory: 5 })', 'ExecCredentialProvider'],
  ["new ExecCredentialProvider(execConfig, {}, 'now')", 'ExecCredentialProvider'],
  [
    "new ExecCredentialProvider(execConfig).getCredentials('x')",
    'ExecCredentialProvider.getCredentials',
  ],
  [
    'new ExecCredentialProvider(execConfig).getCredentials({ signal: {} })',
    'ExecCredentialProvider.getCredentials',
  ],
  ["createExecCredentialProviderFactory('x')", 'createExecCredentialProviderFactory'],
  ['execCredentialProviderFactory.create()', 'execCredentialProviderFactory.create'],
  [
    'execCredentialProviderFactory.create({ config: tokenConfig, now: Date.now })',
    'execCredentialProviderFactory.create',
  ],
  ['new ExecCredentialFileCache()', 'ExecCredentialFileCache'],
  ['new OidcCredentialProvider()', 'OidcCredentialProvider'],
  ['new OidcCredentialProvider(oidcConfig, { requestTimeoutMs: NaN })', 'OidcCredentialProvider'],
  [
    'new OidcCredentialProvider(oidcConfig).getCredentials(5)',
    'OidcCredentialProvider.getCredentials',
  ],
  ['createOidcCredentialProviderFactory(5)', 'createOidcCredentialProviderFactory'],
  ['oidcCredentialProviderFactory.create({})', 'oidcCredentialProviderFactory.create'],
  ['new TokenCredentialProvider()', 'TokenCredentialProvider'],
  ['new TokenCredentialProvider({ token: 5 })', 'TokenCredentialProvider'],
  ["new TokenCredentialProviderFactory('x')", 'TokenCredentialProviderFactory'],
  [
    'new TokenCredentialProviderFactory().create({ config: execConfig, now: Date.now })',
    'TokenCredentialProviderFactory.create',
  ],
  ['new CachedTokenFile()', 'CachedTokenFile'],
  ["new CachedTokenFile('/token', { refreshIntervalMs: -5 })", 'CachedTokenFile'],
  ['new BasicCredentialProvider()', 'BasicCredentialProvider'],
  [
    'new BasicCredentialProviderFactory().create({ config: tokenConfig, now: Date.now })',
    'BasicCredentialProviderFactory.create',
  ],
  ["new RemovedAuthProviderFactory('aws')", 'RemovedAuthProviderFactory'],
  ['selectCredentialProviderFactory()', 'selectCredentialProviderFactory'],
  ["selectCredentialProviderFactory({ kind: 'token' }, 'x')", 'selectCredentialProviderFactory'],
  ["selectCredentialProviderFactory({ kind: 'token' }, [{}])", 'selectCredentialProviderFactory'],
  ['credentialProviderKind()', 'credentialProviderKind'],
  ['loadTlsOptions()', 'loadTlsOptions'],
  ["loadTlsOptions({ insecure: 'no' })", 'loadTlsOptions'],
  ['new ClientCertificateFiles()', 'ClientCertificateFiles'],
  ['new ServerConnector()', 'ServerConnector'],
  [
    "new ServerConnector({ tls: { insecure: false, identity: 'x' }, proxy: 'http://p' })",
    'ServerConnector',
  ],
  ['new NoProxy(5)', 'NoProxy'],
  ["proxyForServer('https://x')", 'proxyForServer'],
  ['parseProxyUrl()', 'parseProxyUrl'],
  ['parseProxyUrl(5)', 'parseProxyUrl'],
  ['buildExecCredentialRequest()', 'buildExecCredentialRequest'],
  ['parseExecCredential()', 'parseExecCredential'],
  ['execClusterInfo()', 'execClusterInfo'],
  ['idTokenExpiry()', 'idTokenExpiry'],
  ["isIdTokenValid('a.b.c')", 'isIdTokenValid'],
  ['discoverTokenEndpoint()', 'discoverTokenEndpoint'],
  ["refreshIdToken({ issuer: 'https://issuer.example' })", 'refreshIdToken'],
  ['createIdentityProviderDispatcher()', 'createIdentityProviderDispatcher'],
  ['new SharedCredentialProviders().acquire()', 'SharedCredentialProviders.acquire'],
];

const MAIN = `
const base = {
  server: 'https://127.0.0.1:6443', contextName: 'c', clusterName: 'c', userName: 'u',
  namespace: 'default', namespaceExplicit: false, tls: { insecure: false },
  disableCompression: false, source: 'kubeconfig',
};
const config = { ...base, auth: { kind: 'none' } };
const tokenConfig = { ...base, auth: { kind: 'token', token: 't' } };
const execConfig = { ...base, auth: { kind: 'exec', exec: {
  command: 'k-plugin', apiVersion: 'client.authentication.k8s.io/v1', provideClusterInfo: false,
  interactiveMode: 'Never' } } };
const oidcConfig = { ...base, auth: { kind: 'auth-provider', name: 'oidc', userName: 'u',
  config: new Map([['idp-issuer-url', 'https://issuer.example'], ['client-id', 'c']]) } };
const cases = [
${CASES.map(([call, entryPoint]) => `  [${JSON.stringify(call)}, ${JSON.stringify(entryPoint)}, () => ${call}],`).join('\n')}
];
const results = [];
for (const [label, entryPoint, call] of cases) {
  try {
    const value = await call();
    results.push({ label, entryPoint, returned: typeof value });
    if (value && typeof value.close === 'function') await value.close();
  } catch (error) {
    results.push({ label, entryPoint, name: error?.name, code: error?.code, message: String(error?.message) });
  }
}
console.log(JSON.stringify(results));
`;

describe.each(MODULE_KINDS)('plain JavaScript misuse of @k/transport (%s)', (kind) => {
  it('every entry point throws ERR_TRANSPORT_INVALID_ARGUMENT naming itself and what to pass', async () => {
    const result = await runNodeProgram({ imports: IMPORTS, main: MAIN }, kind);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const results = JSON.parse(result.stdout) as {
      label: string;
      entryPoint: string;
      name?: string;
      code?: string;
      message?: string;
      returned?: string;
    }[];
    const wrong = results.filter(
      (entry) =>
        entry.name !== 'TransportError' ||
        entry.code !== 'ERR_TRANSPORT_INVALID_ARGUMENT' ||
        !entry.message?.startsWith(`${entry.entryPoint}: `) ||
        !/ must be /.test(entry.message),
    );
    expect(wrong).toEqual([]);
    expect(results).toHaveLength(CASES.length);
  });
});
