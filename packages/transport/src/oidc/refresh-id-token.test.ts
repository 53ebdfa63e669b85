import { execFile, execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestCertificates, eventually } from '@k/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcCredentialProvider } from './oidc-credential-provider.js';

/** v8HasFlag reports whether this runtime's V8 lists `flag` in `--v8-options`. */
function v8HasFlag(flag: string): boolean {
  const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  return options.split('\n').some((line) => line.trimStart().startsWith(`${flag} `));
}

const run = promisify(execFile);

// A fake issuer: discovery answers, the token endpoint accepts the request and never answers.
// The real kube-apiserver's OIDC setup cannot produce an identity provider that stalls.
describe('refreshIdToken against an issuer whose token endpoint stalls (a fake IdP)', () => {
  let server: Server;
  let issuer = '';
  let caPem = '';
  let tokenRequests = 0;
  beforeAll(async () => {
    const certificates = createTestCertificates(['IP:127.0.0.1']);
    caPem = certificates.caPem;
    server = createServer(
      { key: certificates.serverKeyPem, cert: certificates.serverCertPem },
      (request, response) => {
        if (request.url === '/.well-known/openid-configuration') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ issuer, token_endpoint: `${issuer}/token` }));
          return;
        }
        tokenRequests++;
        request.resume(); // the token request: read, never answered
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // Node 20 loses `AbortSignal.any([signal, AbortSignal.timeout(ms)])` once a GC ran before the
  // deadline; only a real process with a real GC shows it. The provider always passes a signal.
  // `--always-turbofan --turbo-filter=send` optimizes the request function as a busy process
  // would: an interpreted suspended frame happens to hold the timeout signal, an optimized not.
  // Node 26's V8 no longer has the flag (and refuses to start with it): there, GC alone.
  it('fails at the request timeout in a process that collects garbage before it is due', async () => {
    const program = [
      "import { OidcCredentialProvider } from './oidc-credential-provider.ts';",
      'const settings = new Map(Object.entries({',
      "  'idp-issuer-url': process.env.ISSUER, 'client-id': 'client',",
      "  'idp-certificate-authority-data': Buffer.from(process.env.CA_PEM).toString('base64'),",
      "  'id-token': 'e30.eyJleHAiOjF9.c2ln', 'refresh-token': 'refresh-token',",
      '}));',
      'const provider = new OidcCredentialProvider(',
      '  {',
      "    server: 'https://127.0.0.1:1', contextName: 'oidc', clusterName: 'cluster', userName: 'user',",
      "    namespace: 'default', namespaceExplicit: false, tls: { insecure: false },",
      "    disableCompression: false, source: 'kubeconfig',",
      "    auth: { kind: 'auth-provider', name: 'oidc', config: settings, userName: 'user' },",
      '  },',
      '  { requestTimeoutMs: 1000 },',
      ');',
      // Collect garbage all along, so a GC falls between the token request and its deadline.
      'const collector = setInterval(() => globalThis.gc(), 50);',
      'collector.unref();',
      'const outcome = await provider.getCredentials().then(',
      "  () => 'refreshed',",
      '  (error) => `${error.code}: ${error.message}`,',
      ');',
      'await provider.close();',
      'console.log(outcome);',
    ].join('\n');
    const { stdout } = await run(
      process.execPath,
      [
        '--expose-gc',
        ...(v8HasFlag('--always-turbofan') ? ['--always-turbofan', '--turbo-filter=send'] : []),
        '--conditions=@k/source',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        program,
      ],
      {
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env: { ...process.env, ISSUER: issuer, CA_PEM: caPem },
        timeout: 20_000,
      },
    );
    expect(stdout.trim()).toBe(
      `ERR_TRANSPORT_OIDC_REFRESH: oidc issuer ${issuer}: failed to refresh token: The operation was aborted due to timeout`,
    );
  });

  it('stops a stalled refresh when the provider is closed', async () => {
    const provider = new OidcCredentialProvider(
      {
        server: 'https://127.0.0.1:1',
        contextName: 'oidc',
        clusterName: 'cluster',
        userName: 'user',
        namespace: 'default',
        namespaceExplicit: false,
        tls: { insecure: false },
        disableCompression: false,
        source: 'kubeconfig',
        auth: {
          kind: 'auth-provider',
          name: 'oidc',
          userName: 'user',
          config: new Map(
            Object.entries({
              'idp-issuer-url': issuer,
              'client-id': 'client',
              'idp-certificate-authority-data': Buffer.from(caPem).toString('base64'),
              'id-token': 'e30.eyJleHAiOjF9.c2ln',
              'refresh-token': 'refresh-token',
            }),
          ),
        },
      },
      { requestTimeoutMs: 60_000 },
    );
    const before = tokenRequests;
    const refresh = provider.getCredentials().then(
      () => undefined,
      (error: unknown) => error,
    );
    await eventually(() => expect(tokenRequests).toBe(before + 1));
    await provider.close();
    expect(await refresh).toMatchObject({
      code: 'ERR_TRANSPORT_OIDC_REFRESH',
      message: `oidc issuer ${issuer}: failed to refresh token: This operation was aborted`,
    });
  });
});
