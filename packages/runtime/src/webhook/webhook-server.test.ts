import { X509Certificate, createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect as http2Connect, constants, type ClientHttp2Session } from 'node:http2';
import { Agent, request as httpsRequest } from 'node:https';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { caught, eventually } from '@k/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { PrometheusMetrics } from '../prometheus.js';
import {
  createSelfSignedCertificate,
  type SelfSignedCertificate,
} from './self-signed-certificate.js';
import type { WebhookCall, WebhookHandler } from './webhook-handler.js';
import { WebhookServer, type WebhookServerOptions } from './webhook-server.js';

// Real TLS servers on 127.0.0.1, called by node's own https and http2 clients.

interface Lines {
  logger: Logger;
  lines: { level: string; message: string; fields: Record<string, unknown> }[];
}

function recordingLogger(): Lines {
  const lines: Lines['lines'] = [];
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      lines.push({ level, message, fields });
    };
  return {
    lines,
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
  };
}

interface Running {
  server: WebhookServer;
  port: number;
  stop: AbortController;
  done: Promise<void>;
}

const running: Running[] = [];

afterEach(async () => {
  for (const { stop, done } of running.splice(0)) {
    stop.abort();
    await done.catch(() => {});
  }
});

async function start(
  options: WebhookServerOptions,
  handlers: Record<string, WebhookHandler> = {},
): Promise<Running> {
  const server = new WebhookServer({ host: '127.0.0.1', port: 0, ...options });
  for (const [path, handler] of Object.entries(handlers)) server.handle(path, handler);
  const stop = new AbortController();
  const done = server.start(stop.signal);
  const entry = { server, port: 0, stop, done };
  running.push(entry);
  let stopped = false;
  void done.then(
    () => (stopped = true),
    () => (stopped = true),
  );
  await eventually(
    () => {
      if (stopped) return;
      if (!server.address) throw new Error('not listening yet');
    },
    10_000,
    5,
  );
  if (!server.address) throw new Error('the server stopped before it listened');
  entry.port = server.address.port;
  return entry;
}

const pair = createSelfSignedCertificate({ hosts: ['localhost', '127.0.0.1'] });
const selfSigned = { selfSigned: { hosts: ['localhost', '127.0.0.1'] } };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  socket?: TLSSocket;
  version?: string;
}

/** post1 POSTs over HTTP/1.1 (`agent` keeps the connection when given). */
function post1(
  port: number,
  path: string,
  body: string | Buffer,
  options: { method?: string; agent?: Agent; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        rejectUnauthorized: false,
        agent: options.agent ?? false,
        headers: { 'content-type': 'application/json', ...options.headers },
      },
      (response) => {
        const socket = response.socket as TLSSocket;
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            headers: response.headers,
            body: text,
            socket,
            version: response.httpVersion,
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function session2(port: number): ClientHttp2Session {
  return http2Connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
}

/** post2 POSTs over HTTP/2 on `session`. */
function post2(
  session: ClientHttp2Session,
  path: string,
  body: string | Buffer | undefined,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/json',
      ...headers,
    });
    let status = 0;
    let received: Answer['headers'] = {};
    let text = '';
    stream.on('response', (responseHeaders) => {
      status = Number(responseHeaders[':status']);
      received = responseHeaders;
    });
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.on('end', () => resolve({ status, headers: received, body: text }));
    stream.on('error', (error: Error) => {
      if (status) resolve({ status, headers: received, body: text });
      else reject(error);
    });
    if (body === undefined) return;
    stream.end(body);
  });
}

const echo: WebhookHandler = (call: WebhookCall) =>
  Promise.resolve({
    status: 200,
    body: {
      bytes: call.body.length,
      sha256: createHash('sha256').update(call.body).digest('hex'),
      contentType: call.contentType,
    },
  });

describe('WebhookServer', () => {
  it('answers POSTs over HTTP/1.1 and HTTP/2 on one port with the handler reply as JSON', async () => {
    const { port } = await start({ certificate: selfSigned }, { '/echo': echo });
    const one = await post1(port, '/echo?timeout=10s', '{"a":1}');
    expect(one.status).toBe(200);
    expect(one.headers['content-type']).toBe('application/json');
    expect(one.version).toBe('1.1');
    expect(JSON.parse(one.body)).toMatchObject({ bytes: 7, contentType: 'application/json' });
    const session = session2(port);
    try {
      const two = await post2(session, '/echo', '{"b":22}');
      expect(session.alpnProtocol).toBe('h2');
      expect(session.remoteSettings.maxConcurrentStreams).toBe(250);
      expect(two.status).toBe(200);
      expect(two.headers['content-type']).toBe('application/json');
      expect(JSON.parse(two.body)).toMatchObject({ bytes: 8 });
    } finally {
      session.close();
    }
  });

  it('answers 404 for an unknown path and 405 with allow: POST for another method', async () => {
    const { port } = await start({ certificate: selfSigned }, { '/echo': echo });
    const unknown = await post1(port, '/other', Buffer.alloc(64 * 1024, 'z'));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.connection).toBe('close'); // its body is not read
    const get = await post1(port, '/echo', '', { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('refuses TLS below 1.2', async () => {
    const { port } = await start({ certificate: selfSigned }, { '/echo': echo });
    const error = await new Promise<Error | undefined>((resolve) => {
      const socket = tlsConnect({
        host: '127.0.0.1',
        port,
        rejectUnauthorized: false,
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT:@SECLEVEL=0',
      });
      socket.on('secureConnect', () => {
        socket.destroy();
        resolve(undefined);
      });
      socket.on('error', resolve);
    });
    expect(error).toBeInstanceOf(Error);
  });

  it('answers 413 to a declared body over maxRequestBytes before the client sends it', async () => {
    let called = false;
    const { port } = await start(
      { certificate: selfSigned, maxRequestBytes: 1024 },
      {
        '/echo': (call) => {
          called = true;
          return echo(call);
        },
      },
    );
    // HTTP/1.1: headers only; the body is never written, so a server that waited for it would hang.
    const one = await new Promise<number>((resolve, reject) => {
      const request = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/echo',
          method: 'POST',
          rejectUnauthorized: false,
          agent: false,
          headers: { 'content-length': String(50 * 1024 * 1024) },
        },
        (response) => {
          resolve(response.statusCode!);
          request.destroy();
        },
      );
      request.on('error', reject);
      request.flushHeaders();
    });
    expect(one).toBe(413);
    const session = session2(port);
    try {
      const two = await post2(session, '/echo', undefined, {
        'content-length': String(50 * 1024 * 1024),
      });
      expect(two.status).toBe(413);
      // A body without a declared length is cut off once it passes the limit.
      const streamed = await post2(session, '/echo', Buffer.alloc(64 * 1024, 'x'));
      expect(streamed.status).toBe(413);
      expect((JSON.parse(streamed.body) as { message: string }).message).toContain('1024');
    } finally {
      session.close();
    }
    expect((await post1(port, '/echo', Buffer.alloc(1024, 'y'))).status).toBe(200);
    expect(called).toBe(true);
  });

  it('answers 503 once the bodies held at once would pass maxBufferedBytes', async () => {
    let holding = false;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { port } = await start(
      { certificate: selfSigned, maxBufferedBytes: 1000 },
      {
        '/hold': async (call) => {
          holding = true;
          await gate;
          return echo(call);
        },
      },
    );
    const held = post1(port, '/hold', Buffer.alloc(800, 'a'));
    await eventually(() => expect(holding).toBe(true), 10_000, 10);
    const refused = await post1(port, '/hold', Buffer.alloc(400, 'b'));
    expect(refused.status).toBe(503);
    release();
    expect((await held).status).toBe(200);
    // Released with its call: the budget is whole again.
    expect((await post1(port, '/hold', Buffer.alloc(900, 'c'))).status).toBe(200);
  });

  it('answers 500 with a generic body and logs when a handler throws or replies what cannot be sent', async () => {
    const { logger, lines } = recordingLogger();
    const { port } = await start(
      { certificate: selfSigned, logger },
      {
        '/throws': () => Promise.reject(new Error('secret detail')),
        '/bigint': () => Promise.resolve({ status: 200, body: { n: 1n } }),
        '/status': () => Promise.resolve({ status: 42, body: {} }),
      },
    );
    for (const path of ['/throws', '/bigint', '/status']) {
      const answer = await post1(port, path, '{}');
      expect(answer.status).toBe(500);
      expect(answer.body).toBe('{"message":"internal error"}');
    }
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(3);
    expect(lines.find((line) => line.message === 'webhook handler failed')?.fields).toMatchObject({
      webhook: '/throws',
      error: 'secret detail',
    });
  });

  it('aborts a slow handler at requestTimeoutMs and answers 504', async () => {
    let seen: { aborted: boolean; reason: unknown } | undefined;
    const { port } = await start(
      { certificate: selfSigned, requestTimeoutMs: 200 },
      {
        '/slow': (call) =>
          new Promise((resolve) => {
            call.signal.addEventListener('abort', () => {
              seen = { aborted: call.signal.aborted, reason: call.signal.reason };
              // Too late: the server has answered already.
              setTimeout(() => resolve({ status: 200, body: {} }), 50);
            });
          }),
      },
    );
    const answer = await post1(port, '/slow', '{}');
    expect(answer.status).toBe(504);
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).name).toBe('TimeoutError');
  });

  it('answers 408 when the body does not arrive within requestTimeoutMs', async () => {
    const { port } = await start(
      { certificate: selfSigned, requestTimeoutMs: 200 },
      { '/echo': echo },
    );
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/echo',
          method: 'POST',
          rejectUnauthorized: false,
          agent: false,
          headers: { 'content-length': '100' },
        },
        (response) => resolve(response.statusCode!),
      );
      request.on('error', reject);
      request.write('{"half":');
    });
    expect(status).toBe(408);
  });

  it('closes an HTTP/1.1 connection whose headers do not all arrive in headersTimeoutMs (slowloris)', async () => {
    const { port } = await start(
      { certificate: selfSigned, headersTimeoutMs: 300 },
      { '/echo': echo },
    );
    const socket = tlsConnect({
      host: '127.0.0.1',
      port,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    socket.write('POST /echo HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('close', resolve));
    expect(received).toMatch(/^HTTP\/1\.1 408|^$/);
  });

  it('keeps serving others while one HTTP/2 client opens and resets streams as fast as it can (rapid reset)', async () => {
    let calls = 0;
    const { port } = await start(
      { certificate: selfSigned },
      {
        '/echo': (call) => {
          calls += 1;
          return echo(call);
        },
      },
    );
    const attacker = session2(port);
    attacker.on('error', () => {});
    await new Promise((resolve) => attacker.once('connect', resolve));
    for (let index = 0; index < 5_000 && !attacker.closed && !attacker.destroyed; index += 1) {
      const stream = attacker.request({ ':method': 'POST', ':path': '/echo' });
      stream.on('error', () => {});
      stream.close(constants.NGHTTP2_CANCEL);
      if (index % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // Not waiting for the attacker's 'close': Node 22's client session never emits it after a
    // destroy with thousands of cancelled streams (the server is what this test is about).
    attacker.destroy();
    const session = session2(port);
    try {
      expect((await post2(session, '/echo', '{}')).status).toBe(200);
    } finally {
      session.close();
    }
    expect(calls).toBeGreaterThanOrEqual(1);
  });

  it('passes a 10,000-deep JSON body to the handler byte for byte, unparsed', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const hostile = Buffer.from(`{"__proto__":{"polluted":true},"deep":${deep}}`);
    let received: Uint8Array | undefined;
    const { port } = await start(
      { certificate: selfSigned },
      {
        '/hostile': (call) => {
          received = call.body;
          return echo(call);
        },
      },
    );
    const answer = await post1(port, '/hostile', hostile);
    expect(answer.status).toBe(200);
    expect(Buffer.compare(Buffer.from(received!), hostile)).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers a body 10,000 levels deep (a converted object), past what JSON.stringify writes on Node 22 and 24', async () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 10_000; level += 1) deep = { a: deep };
    const { port } = await start(
      { certificate: selfSigned },
      { '/deep': () => Promise.resolve({ status: 200, body: { deep } }) },
    );
    const answer = await post1(port, '/deep', '{}');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(`{"deep":${'{"a":'.repeat(10_000)}"bottom"${'}'.repeat(10_000)}}`);
  });

  it('records controller-runtime webhook metrics for registered paths only', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const { port } = await start({ certificate: selfSigned, metrics }, { '/echo': echo });
    await post1(port, '/echo', '{}');
    await post1(port, '/echo', '', { method: 'PUT' });
    await post1(port, '/unknown', '{}');
    const { body } = await metrics.scrape();
    expect(body).toContain(
      'controller_runtime_webhook_requests_total{webhook="/echo",code="200"} 1',
    );
    expect(body).toContain('controller_runtime_webhook_requests_in_flight{webhook="/echo"} 0');
    expect(body).toContain(
      'controller_runtime_webhook_latency_seconds_count{webhook="/echo",code="200"} 1',
    );
    expect(body).not.toContain('/unknown');
    expect(body).toContain('certwatcher_read_certificate_total');
  });

  it('takes a path once and only before it starts; registrations are those given', async () => {
    const server = new WebhookServer({ certificate: selfSigned, host: '127.0.0.1', port: 0 });
    const registration = {
      type: 'conversion',
      path: '/convert',
      crdName: 'a.b',
      versions: ['v1'],
    } as const;
    server.handle('/convert', echo, registration).handle('/raw', echo);
    expect(server.registrations()).toEqual([registration]);
    expect(await caught(() => server.handle('/raw', echo))).toMatchObject({
      code: 'ERR_RUNTIME_CONFIGURATION',
    });
    expect(await caught(() => server.handle('no-slash', echo))).toMatchObject({
      code: 'ERR_RUNTIME_INVALID_ARGUMENT',
    });
    const stop = new AbortController();
    const done = server.start(stop.signal);
    running.push({ server, port: 0, stop, done });
    expect(await caught(() => server.handle('/late', echo))).toMatchObject({
      code: 'ERR_RUNTIME_CONFIGURATION',
    });
  });

  it('is ready only while listening with a certificate', async () => {
    const entry = await start({ certificate: selfSigned }, { '/echo': echo });
    expect(() => entry.server.ready()).not.toThrow();
    expect(entry.server.address?.url).toBe(`https://127.0.0.1:${entry.port}`);
    entry.stop.abort();
    await entry.done;
    expect(() => entry.server.ready()).toThrow('not listening');
    expect(() => new WebhookServer({ certificate: selfSigned }).ready()).toThrow('not listening');
  });

  it('exposes a self-signed authority that a real client trusts', async () => {
    const { server, port } = await start({ certificate: selfSigned }, { '/echo': echo });
    const authority = server.certificateAuthority!;
    expect(Buffer.from(authority.caBundle, 'base64').toString()).toBe(authority.caPem);
    const status = await new Promise<number>((resolve, reject) => {
      httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/echo',
          method: 'POST',
          ca: authority.caPem,
          agent: false,
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      )
        .on('error', reject)
        .end('{}');
    });
    expect(status).toBe(200);
  });

  it('stops gracefully: stops accepting, lets calls in flight finish over HTTP/1.1 and HTTP/2, then resolves', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = 0;
    const entry = await start(
      { certificate: selfSigned },
      {
        '/hold': async (call) => {
          entered += 1;
          await gate;
          return echo(call);
        },
        '/echo': echo,
      },
    );
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    const idleAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const idle = await post1(entry.port, '/echo', '{}', { agent: idleAgent }); // leaves an idle keep-alive socket
    const idleClosed = new Promise((resolve) => idle.socket!.once('close', resolve));
    const session = session2(entry.port);
    const goaway = new Promise((resolve) => session.once('goaway', resolve));
    const one = post1(entry.port, '/hold', '{"one":1}', { agent });
    const two = post2(session, '/hold', '{"two":2}');
    await eventually(() => expect(entered).toBe(2), 10_000, 10);
    entry.stop.abort();
    await goaway;
    await idleClosed;
    const refused = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const socket = netConnect(entry.port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve(Object.assign(new Error('connected'), { code: 'CONNECTED' }));
      });
      socket.on('error', resolve);
    });
    expect(refused.code).toBe('ECONNREFUSED');
    release();
    const [first, second] = await Promise.all([one, two]);
    expect(first.status).toBe(200);
    expect(first.headers.connection).toBe('close');
    expect(second.status).toBe(200);
    await entry.done;
    agent.destroy();
    idleAgent.destroy();
    session.destroy();
  });
});

describe('WebhookServer certificate files', () => {
  /** certDir lays `pair` out as the kubelet mounts a Secret: files behind a `..data` symlink. */
  function certDir(initial: SelfSignedCertificate): {
    dir: string;
    swap: (files: { cert: string; key: string }) => void;
  } {
    const dir = mkdtempSync(join(tmpdir(), 'k-webhook-certs-'));
    let generation = 0;
    const swap = (files: { cert: string; key: string }): void => {
      generation += 1;
      const data = `..2026_${generation}`;
      mkdirSync(join(dir, data));
      writeFileSync(join(dir, data, 'tls.crt'), files.cert);
      writeFileSync(join(dir, data, 'tls.key'), files.key);
      symlinkSync(data, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    };
    swap({ cert: initial.certPem, key: initial.keyPem });
    symlinkSync(join('..data', 'tls.crt'), join(dir, 'tls.crt'));
    symlinkSync(join('..data', 'tls.key'), join(dir, 'tls.key'));
    dirs.push(dir);
    return { dir, swap };
  }
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function fingerprintOf(port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        resolve(socket.getPeerCertificate().fingerprint256);
        socket.destroy();
      });
      socket.on('error', reject);
    });
  }

  const fingerprint = (certificate: SelfSignedCertificate): string =>
    new X509Certificate(certificate.certPem).fingerprint256;

  it('serves the new pair to new connections after a ..data swap while an open connection keeps working', async () => {
    const second = createSelfSignedCertificate({ hosts: ['localhost'] });
    const { dir, swap } = certDir(pair);
    const { logger, lines } = recordingLogger();
    const { port } = await start(
      { certificate: { certDir: dir }, certificateReloadIntervalMs: 100, logger },
      { '/echo': echo },
    );
    expect(await fingerprintOf(port)).toBe(fingerprint(pair));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = await post1(port, '/echo', '{}', { agent });
    const session = session2(port);
    await post2(session, '/echo', '{}');
    swap({ cert: second.certPem, key: second.keyPem });
    await eventually(
      async () => expect(await fingerprintOf(port)).toBe(fingerprint(second)),
      10_000,
      50,
    );
    const after = await post1(port, '/echo', '{}', { agent });
    expect(after.status).toBe(200);
    expect(after.socket).toBe(before.socket); // the same keep-alive connection, with the old certificate
    expect(after.socket!.getPeerCertificate().fingerprint256).toBe(fingerprint(pair));
    expect((await post2(session, '/echo', '{}')).status).toBe(200);
    const fresh = session2(port);
    expect((await post2(fresh, '/echo', '{}')).status).toBe(200);
    expect(lines.some((line) => line.message === 'webhook certificate reloaded')).toBe(true);
    agent.destroy();
    session.close();
    fresh.close();
  });

  it('keeps serving the old pair when the new one is garbled or mismatched, logging and counting it', async () => {
    const { dir, swap } = certDir(pair);
    const { logger, lines } = recordingLogger();
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const { port } = await start(
      { certificate: { certDir: dir }, certificateReloadIntervalMs: 50, logger, metrics },
      { '/echo': echo },
    );
    const other = createSelfSignedCertificate({ hosts: ['localhost'] });
    swap({ cert: 'not a certificate', key: pair.keyPem });
    await eventually(
      () => expect(lines.some((line) => line.level === 'error')).toBe(true),
      10_000,
      20,
    );
    swap({ cert: other.certPem, key: pair.keyPem });
    await eventually(
      () =>
        expect(
          lines.some((line) =>
            String(line.fields.error).includes('is not the key of the certificate'),
          ),
        ).toBe(true),
      10_000,
      20,
    );
    expect(await fingerprintOf(port)).toBe(fingerprint(pair));
    expect((await post1(port, '/echo', '{}')).status).toBe(200);
    expect((await metrics.scrape()).body).toMatch(
      /certwatcher_read_certificate_errors_total [1-9]/,
    );
    for (const line of lines) expect(JSON.stringify(line)).not.toContain('PRIVATE KEY');
  });

  it("reads controller-runtime's directory by default", async () => {
    const error = await caught(
      new WebhookServer({ host: '127.0.0.1', port: 0 }).start(new AbortController().signal),
    );
    expect(error).toMatchObject({ code: 'ERR_RUNTIME_WEBHOOK_CERTIFICATE' });
    expect((error as Error).message).toContain('/tmp/k8s-webhook-server/serving-certs/tls.');
  });

  it('fails to start with ERR_RUNTIME_WEBHOOK_CERTIFICATE naming the file, never the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k-webhook-bad-'));
    dirs.push(dir);
    const cases: [string, string | undefined, string | undefined, string][] = [
      ['missing', undefined, undefined, join(dir, 'missing', 'tls.crt')],
      [
        'garbled-key',
        pair.certPem,
        `${pair.keyPem.slice(0, 80)}garbage`,
        join(dir, 'garbled-key', 'tls.key'),
      ],
      [
        'mismatch',
        pair.certPem,
        createSelfSignedCertificate({ hosts: ['x'] }).keyPem,
        join(dir, 'mismatch', 'tls.key'),
      ],
    ];
    for (const [name, cert, key, named] of cases) {
      const sub = join(dir, name);
      if (cert !== undefined && key !== undefined) {
        mkdirSync(sub);
        writeFileSync(join(sub, 'tls.crt'), cert);
        writeFileSync(join(sub, 'tls.key'), key);
      }
      const server = new WebhookServer({
        certificate: { certDir: sub },
        host: '127.0.0.1',
        port: 0,
      });
      const error = await caught(server.start(new AbortController().signal));
      expect(RuntimeError.isInstance(error) && error.code).toBe('ERR_RUNTIME_WEBHOOK_CERTIFICATE');
      expect((error as Error).message).toContain(named);
      expect((error as Error).message).not.toContain('PRIVATE KEY');
      expect(String((error as Error).cause)).not.toContain('PRIVATE KEY');
    }
  });
});
