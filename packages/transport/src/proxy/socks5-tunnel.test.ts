import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocks5Proxy } from '@k/test-utils';
import { socks5Tunnel } from './socks5-tunnel.js';

describe('socks5Tunnel against a small SOCKS5 test proxy and a TCP echo server', () => {
  let echo: Server;
  let port: number;

  beforeAll(async () => {
    echo = createServer((socket) => socket.pipe(socket));
    echo.listen(0, '::');
    await once(echo, 'listening');
    port = (echo.address() as AddressInfo).port;
  });

  afterAll(async () => {
    echo.close();
    await once(echo, 'close');
  });

  async function roundTrip(proxyUrl: string, host: string): Promise<string> {
    const proxy = new URL(proxyUrl);
    const socket: Socket = connect({ host: proxy.hostname, port: Number(proxy.port) });
    await once(socket, 'connect');
    await socks5Tunnel(socket, proxy, host, port);
    socket.resume();
    socket.write('ping');
    const [data] = (await once(socket, 'data')) as [Buffer];
    socket.destroy();
    return data.toString();
  }

  it('connects to IPv4, IPv6 and named hosts', async () => {
    const proxy = await startSocks5Proxy();
    try {
      expect(await roundTrip(proxy.url, '127.0.0.1')).toBe('ping');
      expect(await roundTrip(proxy.url, '::1')).toBe('ping');
      expect(await roundTrip(proxy.url, 'localhost')).toBe('ping');
      expect(proxy.tunnels).toEqual([
        `127.0.0.1:${port}`,
        `0000:0000:0000:0000:0000:0000:0000:0001:${port}`,
        `localhost:${port}`,
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('authenticates with username and password, and reports a refusal without the password', async () => {
    const proxy = await startSocks5Proxy({ username: 'user', password: 'pa:ss' });
    try {
      const url = new URL(proxy.url);
      url.password = encodeURIComponent('pa:ss');
      expect(await roundTrip(url.href, '127.0.0.1')).toBe('ping');
      url.password = 'wrong';
      const error = (await roundTrip(url.href, '127.0.0.1').catch(
        (caught: unknown) => caught,
      )) as Error;
      expect(error.message).toBe('the SOCKS5 proxy rejected the username and password');
      url.username = '';
      url.password = '';
      const none = (await roundTrip(url.href, '127.0.0.1').catch(
        (caught: unknown) => caught,
      )) as Error;
      expect(none.message).toBe(
        'the SOCKS5 proxy accepts none of the offered authentication methods',
      );
    } finally {
      await proxy.close();
    }
  });
});
