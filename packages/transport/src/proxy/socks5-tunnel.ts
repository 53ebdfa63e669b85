import { isIP, type Socket } from 'node:net';
import { SocketReader } from './socket-reader.js';

const VERSION = 0x05;
const NO_AUTHENTICATION = 0x00;
const USERNAME_PASSWORD = 0x02;
const NO_ACCEPTABLE_METHODS = 0xff;

/** RFC 1928 reply codes. */
const REPLIES: Readonly<Record<number, string>> = {
  0x01: 'general SOCKS server failure',
  0x02: 'connection not allowed by ruleset',
  0x03: 'network unreachable',
  0x04: 'host unreachable',
  0x05: 'connection refused',
  0x06: 'TTL expired',
  0x07: 'command not supported',
  0x08: 'address type not supported',
};

/**
 * socks5Tunnel runs a SOCKS5 (RFC 1928) CONNECT to `host:port` over `socket`, connected to the
 * proxy. It offers no authentication, and username/password (RFC 1929) when the proxy URL has a
 * username. IP hosts are sent as addresses, names as names (the proxy resolves them, as Go's
 * SOCKS5 dialer does). Resolves with the socket, now a tunnel; rejects naming the proxy's reply.
 * Never includes the credentials in errors.
 */
export async function socks5Tunnel(
  socket: Socket,
  proxy: URL,
  host: string,
  port: number,
): Promise<Socket> {
  const username = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  const methods = username ? [NO_AUTHENTICATION, USERNAME_PASSWORD] : [NO_AUTHENTICATION];
  const reader = new SocketReader(socket);
  socket.write(Buffer.from([VERSION, methods.length, ...methods]));
  const [version, method] = await reader.read(2);
  if (version !== VERSION) throw new Error('the proxy does not speak SOCKS5');
  if (method === NO_ACCEPTABLE_METHODS || !methods.includes(method as number)) {
    throw new Error('the SOCKS5 proxy accepts none of the offered authentication methods');
  }
  if (method === USERNAME_PASSWORD) {
    const user = Buffer.from(username);
    const pass = Buffer.from(password);
    if (user.length > 255 || pass.length > 255) {
      throw new Error('SOCKS5 username and password must be at most 255 bytes');
    }
    socket.write(
      Buffer.concat([Buffer.from([0x01, user.length]), user, Buffer.from([pass.length]), pass]),
    );
    const [, status] = await reader.read(2);
    if (status !== 0x00) throw new Error('the SOCKS5 proxy rejected the username and password');
  }
  socket.write(
    Buffer.concat([Buffer.from([VERSION, 0x01, 0x00]), encodeAddress(host), encodePort(port)]),
  );
  const [replyVersion, reply, , addressType] = await reader.read(4);
  if (replyVersion !== VERSION) throw new Error('the proxy does not speak SOCKS5');
  if (reply !== 0x00) {
    const reason = REPLIES[reply as number] ?? `reply ${reply}`;
    throw new Error(`the SOCKS5 proxy could not connect to ${host}:${port}: ${reason}`);
  }
  if (addressType === 0x01) await reader.read(4 + 2);
  else if (addressType === 0x04) await reader.read(16 + 2);
  else if (addressType === 0x03) await reader.read(((await reader.read(1))[0] as number) + 2);
  else throw new Error('the SOCKS5 proxy sent an unknown address type');
  reader.release();
  return socket;
}

function encodeAddress(host: string): Buffer {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const version = isIP(bare);
  if (version === 4) return Buffer.from([0x01, ...bare.split('.').map(Number)]);
  if (version === 6) return Buffer.concat([Buffer.from([0x04]), ipv6Bytes(bare)]);
  const name = Buffer.from(bare);
  if (name.length > 255) throw new Error('SOCKS5 host names must be at most 255 bytes');
  return Buffer.concat([Buffer.from([0x03, name.length]), name]);
}

function encodePort(port: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(port);
  return bytes;
}

/** ipv6Bytes writes an IPv6 address (compressed, or with an embedded IPv4 tail) as 16 bytes. */
function ipv6Bytes(address: string): Buffer {
  const groupsOf = (part: string) =>
    (part ? part.split(':') : []).flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  const [head = '', tail] = address.split('::');
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const zeros = Array<number>(8 - front.length - back.length).fill(0);
  const bytes = Buffer.alloc(16);
  [...front, ...zeros, ...back].forEach((group, index) => bytes.writeUInt16BE(group, index * 2));
  return bytes;
}
