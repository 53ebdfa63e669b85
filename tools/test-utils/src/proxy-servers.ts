import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';

/** TestProxy is a local proxy a test puts in front of a server, recording what it tunnelled. */
export interface TestProxy {
  /** url is the proxy URL (`http://127.0.0.1:<port>` or `socks5://…`, with credentials if set). */
  readonly url: string;
  /** tunnels lists every target (`host:port`) the proxy connected to, in order. */
  readonly tunnels: string[];
  /** refused counts handshakes it rejected (bad credentials). */
  readonly refused: number;
  close(): Promise<void>;
}

interface Credentials {
  username: string;
  password: string;
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function pipe(client: Socket, host: string, port: number, onOpen: () => void): void {
  const upstream = connect({ host, port }, onOpen);
  upstream.on('error', () => client.destroy());
  upstream.on('close', () => client.destroy());
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
  upstream.pipe(client);
  client.pipe(upstream);
}

function closer(server: Server, sockets: Set<Socket>): () => Promise<void> {
  return async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  };
}

/**
 * startHttpConnectProxy starts an HTTP proxy on loopback that only serves `CONNECT host:port`
 * (what the transport sends) and pipes bytes both ways; with `credentials` it answers 407 unless
 * `Proxy-Authorization: Basic` matches; with `tls` it listens for TLS (an https proxy). A small
 * node:net server written for tests.
 */
export async function startHttpConnectProxy(
  credentials?: Credentials,
  tls?: TlsOptions,
): Promise<TestProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  let refused = 0;
  const serve = (client: Socket) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const rest = head.subarray(end + 4);
      const match = /^CONNECT (\S+):(\d+) HTTP\/1\.1$/.exec(lines[0] ?? '');
      if (!match) {
        client.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
        return;
      }
      if (credentials) {
        const expected =
          `proxy-authorization: basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`.toLowerCase();
        if (!lines.some((line) => line.toLowerCase() === expected)) {
          refused += 1;
          client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
          return;
        }
      }
      const host = (match[1] as string).replace(/^\[(.*)\]$/, '$1');
      const port = Number(match[2]);
      tunnels.push(`${host}:${port}`);
      client.pause();
      pipe(client, host, port, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length > 0) client.unshift(rest);
        client.resume();
      });
    };
    client.on('data', onData);
  };
  // With `tls` it is an https proxy: the client speaks TLS to the proxy, then TLS inside the tunnel.
  const server = tls ? createTlsServer(tls, serve) : createServer(serve);
  const port = await listen(server);
  const auth = credentials ? `${credentials.username}:${credentials.password}@` : '';
  return {
    url: `${tls ? 'https' : 'http'}://${auth}127.0.0.1:${port}`,
    tunnels,
    get refused() {
      return refused;
    },
    close: closer(server, sockets),
  };
}

/**
 * startSocks5Proxy starts a SOCKS5 (RFC 1928) proxy on loopback supporting CONNECT with IPv4,
 * IPv6 and domain-name targets, with no authentication or, given `credentials`, only RFC 1929
 * username/password. A small node:net server written for tests.
 */
export async function startSocks5Proxy(credentials?: Credentials): Promise<TestProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  let refused = 0;
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'auth' | 'request' = 'greeting';
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (stage === 'greeting') {
          if (buffer.length < 2 || buffer.length < 2 + (buffer[1] as number)) return;
          const methods = [...buffer.subarray(2, 2 + (buffer[1] as number))];
          buffer = buffer.subarray(2 + (buffer[1] as number));
          const wanted = credentials ? 0x02 : 0x00;
          if (!methods.includes(wanted)) {
            refused += 1;
            client.end(Buffer.from([0x05, 0xff]));
            return;
          }
          client.write(Buffer.from([0x05, wanted]));
          stage = credentials ? 'auth' : 'request';
        } else if (stage === 'auth') {
          if (buffer.length < 2) return;
          const userLength = buffer[1] as number;
          if (buffer.length < 3 + userLength) return;
          const passLength = buffer[2 + userLength] as number;
          if (buffer.length < 3 + userLength + passLength) return;
          const username = buffer.subarray(2, 2 + userLength).toString();
          const password = buffer.subarray(3 + userLength, 3 + userLength + passLength).toString();
          buffer = buffer.subarray(3 + userLength + passLength);
          if (username !== credentials?.username || password !== credentials.password) {
            refused += 1;
            client.end(Buffer.from([0x01, 0x01]));
            return;
          }
          client.write(Buffer.from([0x01, 0x00]));
          stage = 'request';
        } else {
          if (buffer.length < 5) return;
          const type = buffer[3] as number;
          const addressLength = type === 0x01 ? 4 : type === 0x04 ? 16 : 1 + (buffer[4] as number);
          if (buffer.length < 4 + addressLength + 2) return;
          const address = buffer.subarray(4, 4 + addressLength);
          const host =
            type === 0x01
              ? [...address].join('.')
              : type === 0x04
                ? (address.toString('hex').match(/.{4}/g) ?? []).join(':')
                : address.subarray(1).toString();
          const port = buffer.readUInt16BE(4 + addressLength);
          const rest = buffer.subarray(4 + addressLength + 2);
          client.off('data', onData);
          tunnels.push(`${host}:${port}`);
          client.pause();
          pipe(client, host, port, () => {
            client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
            if (rest.length > 0) client.unshift(rest);
            client.resume();
          });
          return;
        }
      }
    };
    client.on('data', onData);
  });
  const port = await listen(server);
  const auth = credentials ? `${credentials.username}:${credentials.password}@` : '';
  return {
    url: `socks5://${auth}127.0.0.1:${port}`,
    tunnels,
    get refused() {
      return refused;
    },
    close: closer(server, sockets),
  };
}
