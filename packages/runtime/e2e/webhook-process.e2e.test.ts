import { request as httpsRequest } from 'node:https';
import { MODULE_KINDS, startNodeProgram, type RunningNodeProgram } from '@k/test-utils';
import { afterEach, describe, expect, it } from 'vitest';

// A webhook server run by a Manager's `run()` in a plain `node` process on the built packages,
// ESM and CommonJS, collecting garbage every 50 ms (with --expose-gc) so a timeout that a GC could
// lose is lost here: a handler that never answers is cut at requestTimeoutMs with 504, and SIGTERM
// lets a call in flight finish before the process exits 0.
const PROGRAM = `if (globalThis.gc) setInterval(() => globalThis.gc(), 50).unref();
const manager = new Manager({ probes: false, metricsServer: false, logger: SILENT_LOGGER });
manager
  .webhookServer({
    host: '127.0.0.1',
    port: 0,
    requestTimeoutMs: 600,
    certificate: { selfSigned: { hosts: ['127.0.0.1'] } },
    onListening: (address) => console.log('LISTENING ' + address.url),
  })
  .handle('/hang', () => new Promise(() => {}))
  .handle('/slow', async () => {
    console.log('SLOW CALLED');
    await new Promise((resolve) => setTimeout(resolve, 400));
    return { status: 200, body: { answered: 'slow' } };
  });
await manager.run();
console.log('STOPPED');
`;

const running: RunningNodeProgram[] = [];

afterEach(() => {
  for (const program of running.splice(0)) program.child.kill('SIGKILL');
});

/** post sends `{}` to `url` (the self-signed certificate is not checked) and returns the status and body. */
function post(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      url,
      {
        method: 'POST',
        rejectUnauthorized: false,
        headers: { 'content-type': 'application/json' },
        agent: false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.once('error', reject);
    request.end('{}');
  });
}

describe.each(MODULE_KINDS)('a webhook server in a node process (%s)', (kind) => {
  it('cuts a hanging handler at its timeout though the GC runs, and on SIGTERM finishes the call in flight, then exits 0', async () => {
    const program = await startNodeProgram(
      { imports: { '@k/runtime': ['Manager', 'SILENT_LOGGER'] }, main: PROGRAM },
      kind,
      { nodeArgs: ['--expose-gc'], timeoutMs: 30_000 },
    );
    running.push(program);
    const [, base] = await program.waitForStdout(/LISTENING (\S+)/, 20_000);

    const hung = await post(`${base}/hang`);
    expect(hung.status).toBe(504);
    expect(hung.body).toContain('did not answer within 600 ms');

    const slow = post(`${base}/slow`);
    await program.waitForStdout(/SLOW CALLED/);
    program.child.kill('SIGTERM');
    expect(await slow).toEqual({ status: 200, body: '{"answered":"slow"}' });
    const exit = await program.exited;
    expect(exit, exit.stderr).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
    expect(exit.stdout.trim().split('\n').at(-1)).toBe('STOPPED');
  });
});
