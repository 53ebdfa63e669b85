import { describe, expect, it } from 'vitest';
import { parseServerUrl } from './server-url.js';

describe('parseServerUrl (client-go DefaultServerURL)', () => {
  it.each([
    ['127.0.0.1', false, 'http://127.0.0.1/', ''],
    ['127.0.0.1:6443', true, 'https://127.0.0.1:6443/', ''],
    ['localhost:8080', false, 'http://localhost:8080/', ''],
    ['', false, 'http://localhost/', ''],
    ['http://host/prefix', false, 'http://host/prefix', '/prefix'],
    [
      'https://host:6443/k8s/clusters/c1/',
      true,
      'https://host:6443/k8s/clusters/c1/',
      '/k8s/clusters/c1',
    ],
    ['https://[fd00::1]:443', true, 'https://[fd00::1]/', ''],
  ])('%j (tls %s) → %s', (server, tls, href, basePath) => {
    const info = parseServerUrl(server, tls);
    expect(info.url.href).toBe(href);
    expect(info.basePath).toBe(basePath);
    expect(info.origin).toBe(info.url.origin);
  });

  it('refuses a scheme-less host with a path, and other schemes', () => {
    expect(() => parseServerUrl('host/server', false)).toThrow(
      'host must be a URL or a host:port pair: "host/server"',
    );
    expect(() => parseServerUrl('ftp://host', false)).toThrow(
      expect.objectContaining({ code: 'ERR_TRANSPORT_SERVER_URL' }),
    );
  });

  it('never quotes a password that is part of a bad server URL', () => {
    for (const server of [
      'https://user:pa55w0rd@[bad',
      'ftp://user:pa55w0rd@host',
      'user:pa55w0rd@host/x',
    ]) {
      let message = '';
      try {
        parseServerUrl(server, false);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toContain('pa55w0rd');
    }
  });
});
