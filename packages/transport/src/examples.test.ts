import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCertificates } from '@k/test-utils';

const EXAMPLE = fileURLToPath(new URL('../examples/request-logging.ts', import.meta.url));
const TOKEN = 'example-secret-token-4242';

/** runExample runs the example as a program on the sources (`@k/source`), as its README says. */
async function runExample(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(
    process.execPath,
    ['--conditions=@k/source', '--import', 'tsx', EXAMPLE, ...args],
    { encoding: 'utf8' },
  );
}

describe('examples/request-logging.ts against a local HTTPS server (to see gzip at the wire)', () => {
  let server: Server;
  let directory: string;
  let kubeconfig: string;
  const requestIds: (string | undefined)[] = [];

  beforeAll(async () => {
    const pki = createTestCertificates();
    server = createServer(
      { cert: pki.serverCertPem, key: pki.serverKeyPem },
      (request, response) => {
        request.resume();
        requestIds.push(request.headers['x-request-id'] as string | undefined);
        if (request.headers.authorization !== `Bearer ${TOKEN}`) {
          response.writeHead(401).end();
        } else if (request.url === '/version') {
          const body = gzipSync(JSON.stringify({ gitVersion: 'v0.0.0-local' }));
          response.writeHead(200, {
            'content-encoding': 'gzip',
            'content-type': 'application/json',
          });
          response.end(body);
        } else {
          response.writeHead(201, {
            'content-type': 'application/json',
            'x-kubernetes-pf-flowschema-uid': 'flow-schema-uid-1',
          });
          response.end(JSON.stringify({ status: { userInfo: { username: 'local-user' } } }));
        }
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    directory = mkdtempSync(join(tmpdir(), 'k-request-logging-'));
    kubeconfig = join(directory, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'local',
            cluster: {
              server: `https://127.0.0.1:${port}`,
              'certificate-authority-data': Buffer.from(pki.caPem).toString('base64'),
            },
          },
        ],
        users: [{ name: 'local-user', user: { token: TOKEN } }],
        contexts: [{ name: 'local', context: { cluster: 'local', user: 'local-user' } }],
        'current-context': 'local',
      }),
    );
  });

  afterAll(async () => {
    rmSync(directory, { recursive: true, force: true });
    server.close();
    await once(server, 'close');
  });

  it('prints the stack and one line per attempt and response, with credentials redacted', async () => {
    const { stdout, stderr } = await runExample(`--kubeconfig=${kubeconfig}`);
    expect(stderr).toBe('');
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'stack: request-id → user-agent → auth → compression → request-logger → pool',
    );
    expect(lines[1]).toMatch(
      /^→ GET \/version \{x-request-id: [0-9a-f-]{36}, user-agent: k\/\S+ \(\S+\) request-logging-example, authorization: \[redacted\], accept-encoding: gzip\}$/,
    );
    // The wire position sees the body as it arrived: gzip-encoded.
    expect(lines[2]).toMatch(/^← 200 GET \/version \d+ bytes content-encoding=gzip$/);
    expect(lines[3]).toBe('server version v0.0.0-local');
    expect(lines[4]).toMatch(/^→ POST \/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews \{/);
    expect(lines[5]).toMatch(
      /^← 201 POST \/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews \d+ bytes flowschema-uid=flow-schema-uid-1$/,
    );
    expect(lines[6]).toBe('authenticated as local-user');
    expect(lines).toHaveLength(7);
    expect(stdout).not.toContain(TOKEN);
    // Each request got its own id, and the logged one is the one sent.
    expect(new Set(requestIds.slice(-2)).size).toBe(2);
    expect(lines[1]).toContain(`x-request-id: ${requestIds.at(-2)}`);
  });

  it('fails with a message and exit code 1 when the server is refused', async () => {
    const failing = join(directory, 'refused');
    writeFileSync(
      failing,
      JSON.stringify({
        clusters: [{ name: 'x', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'u', user: { token: TOKEN } }],
        contexts: [{ name: 'x', context: { cluster: 'x', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const error = (await runExample(`--kubeconfig=${failing}`).catch(
      (caught: unknown) => caught,
    )) as { code?: number; stdout: string; stderr: string };
    expect(error.code).toBe(1);
    expect(error.stdout).toMatch(/^✗ GET \/version: /m);
    expect(error.stderr).toMatch(/^request-logging: /);
    expect(`${error.stdout}${error.stderr}`).not.toContain(TOKEN);
  });
});
