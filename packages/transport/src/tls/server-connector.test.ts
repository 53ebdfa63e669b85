import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { secretLeaks } from '../../e2e/support/secret-leaks.js';
import { TransportError } from '../errors.js';
import { ServerConnector } from './server-connector.js';

/**
 * A fake proxy, not a real one: it accepts TCP connections and then behaves as told (never
 * answer, or answer a CONNECT with 200 and then go silent). A real proxy and the real API
 * server never stall like this on purpose, and these faults are what the tests are about.
 */
interface FakeProxy {
  port: number;
  /** accepted counts the connections it accepted; closed those the client closed. */
  accepted: number;
  closed: number;
  close(): Promise<void>;
}

async function startFakeProxy(behaviour: 'silent' | 'connect-then-silent'): Promise<FakeProxy> {
  const sockets = new Set<Socket>();
  const proxy = { port: 0, accepted: 0, closed: 0, close: async () => {} };
  const server: Server = createServer((socket) => {
    proxy.accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      proxy.closed++;
      sockets.delete(socket);
    });
    let answered = false;
    // Reading (and discarding) is what lets the fake see the client's FIN.
    socket.on('data', (chunk: Buffer) => {
      if (behaviour === 'connect-then-silent' && !answered && chunk.includes('\r\n\r\n')) {
        answered = true;
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxy.port = (server.address() as AddressInfo).port;
  proxy.close = async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  };
  return proxy;
}

/** openSockets counts this process's TCP and TLS handles. */
function openSockets(): number {
  return process
    .getActiveResourcesInfo()
    .filter((kind) => kind === 'TCPSocketWrap' || kind === 'TLSWrap').length;
}

function connect(connector: ServerConnector, protocol = 'https:'): Promise<Error | null> {
  return new Promise((resolve) => {
    connector.connect(
      {
        hostname: 'kubernetes.example',
        host: 'kubernetes.example',
        port: '6443',
        protocol,
        servername: 'kubernetes.example',
      },
      (error, socket) => {
        socket?.destroy();
        resolve(error);
      },
    );
  });
}

async function eventually(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100 && !check(); attempt++) await sleep(20);
}

describe('ServerConnector through a proxy that stalls (fake proxies)', () => {
  const proxies: FakeProxy[] = [];
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
  });

  it.each(['http', 'https', 'socks5'])(
    'a %s proxy that never answers: the connect timeout closes the socket to it',
    async (scheme) => {
      const proxy = await startFakeProxy('silent');
      proxies.push(proxy);
      const before = openSockets();
      const connector = new ServerConnector({
        tls: { insecure: false, identity: 'test' },
        proxy: new URL(`${scheme}://user:pa55-w0rd@127.0.0.1:${proxy.port}`),
        connectTimeoutMs: 300,
      });
      const error = await connect(connector);
      expect(error).toBeInstanceOf(TransportError);
      expect((error as TransportError).code).toBe('ERR_TRANSPORT_PROXY');
      expect(error?.message).toBe(
        `proxy ${scheme}://user:xxxxx@127.0.0.1:${proxy.port}${scheme === 'socks5' ? '' : '/'}: timed out after 300ms`,
      );
      expect(secretLeaks(error, ['pa55-w0rd'])).toEqual([]);
      await eventually(() => proxy.closed === proxy.accepted && openSockets() <= before);
      expect(proxy.accepted).toBe(1);
      expect(proxy.closed).toBe(1);
      expect(openSockets()).toBeLessThanOrEqual(before);
    },
  );

  it('a proxy that opens the tunnel and then stalls: the TLS timeout closes the socket', async () => {
    const proxy = await startFakeProxy('connect-then-silent');
    proxies.push(proxy);
    const before = openSockets();
    const connector = new ServerConnector({
      tls: { insecure: false, identity: 'test' },
      proxy: new URL(`http://127.0.0.1:${proxy.port}`),
      connectTimeoutMs: 300,
    });
    const error = await connect(connector);
    expect(error?.name).toBe('ConnectTimeoutError');
    await eventually(() => proxy.closed === proxy.accepted && openSockets() <= before);
    expect(proxy.closed).toBe(1);
    expect(openSockets()).toBeLessThanOrEqual(before);
  });
});

describe('ServerConnector timers', () => {
  it('does not overflow a connect timeout longer than a Node timer holds', async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on('warning', listener);
    const refused = createServer();
    refused.listen(0, '127.0.0.1');
    await once(refused, 'listening');
    const port = (refused.address() as AddressInfo).port;
    refused.close();
    try {
      const connector = new ServerConnector({
        tls: { insecure: false, identity: 'test' },
        proxy: new URL(`http://127.0.0.1:${port}`),
        connectTimeoutMs: 2 ** 31,
      });
      const error = await connect(connector);
      expect(error?.message).toMatch(/ECONNREFUSED/);
      await sleep(10);
      expect(warnings.filter((warning) => warning.name === 'TimeoutOverflowWarning')).toEqual([]);
    } finally {
      process.off('warning', listener);
    }
  });
});
