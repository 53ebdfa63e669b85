import type { Socket } from 'node:net';
import { SocketReader } from './socket-reader.js';

/** The most bytes of a CONNECT response head read before giving up. */
const MAX_RESPONSE_HEAD_BYTES = 16 * 1024;

/**
 * httpConnectTunnel asks an HTTP proxy, over the already connected `socket` (plain TCP, or TLS
 * for an https proxy), to open a tunnel to `host:port` with `CONNECT` (with
 * `Proxy-Authorization: Basic …` when the proxy URL has a username). Resolves with the socket,
 * now a raw tunnel, once the proxy answers 2xx; rejects with the proxy's status line otherwise.
 * Never includes the proxy credentials in errors.
 */
export async function httpConnectTunnel(
  socket: Socket,
  proxy: URL,
  host: string,
  port: number,
): Promise<Socket> {
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  let head = `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n`;
  if (proxy.username || proxy.password) {
    const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    head += `Proxy-Authorization: Basic ${Buffer.from(credentials).toString('base64')}\r\n`;
  }
  const reader = new SocketReader(socket);
  socket.write(`${head}\r\n`);
  const response = (await reader.readUntil('\r\n\r\n', MAX_RESPONSE_HEAD_BYTES)).toString('latin1');
  reader.release();
  const statusLine = response.slice(0, response.indexOf('\r\n'));
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match || !(match[1] as string).startsWith('2')) {
    throw new Error(
      `the proxy refused the tunnel to ${authority}: ${statusLine || 'no status line'}`,
    );
  }
  return socket;
}
