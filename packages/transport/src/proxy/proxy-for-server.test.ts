import { describe, expect, it } from 'vitest';
import { secretLeaks } from '../../e2e/support/secret-leaks.js';
import { TransportError } from '../errors.js';
import { redactUrl } from '../redaction/redact-url.js';
import { NoProxy, parseProxyUrl, proxyForServer } from './proxy-for-server.js';

describe('NoProxy (Go httpproxy semantics, with CIDRs as client-go)', () => {
  it.each([
    // [NO_PROXY, host, port, bypass]
    ['', 'example.com', '443', false],
    ['*', 'example.com', '443', true],
    ['example.com', 'example.com', '443', true],
    ['example.com', 'api.example.com', '443', true],
    ['example.com', 'notexample.com', '443', false],
    ['.example.com', 'example.com', '443', false],
    ['.example.com', 'api.example.com', '443', true],
    ['*.example.com', 'example.com', '443', false],
    ['*.example.com', 'api.example.com', '443', true],
    ['example.com:443', 'example.com', '443', true],
    ['example.com:443', 'example.com', '6443', false],
    [' Example.COM , other ', 'api.example.com', '443', true],
    ['10.0.0.0/8', '10.1.2.3', '6443', true],
    ['10.0.0.0/8', '11.1.2.3', '6443', false],
    ['10.0.0.0/8', 'ten.example', '6443', false],
    ['192.168.1.10', '192.168.1.10', '6443', true],
    ['192.168.1.10:6443', '192.168.1.10', '443', false],
    ['192.168.1.10:6443', '192.168.1.10', '6443', true],
    ['fd00::/8', 'fd00::1', '443', true],
    ['[fd00::1]:443', '[fd00::1]', '443', true],
    ['fd00:0:0::1', 'fd00::1', '443', true],
    [':80', 'example.com', '80', false],
    ['bücher.example', 'xn--bcher-kva.example', '443', true],
  ])('NO_PROXY=%j, %s:%s → bypass %s', (list, host, port, bypass) => {
    expect(new NoProxy(list).matches(host, port)).toBe(bypass);
  });

  it('never proxies localhost or loopback addresses, whatever the list', () => {
    const none = new NoProxy('');
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.9.9.9', '::1', '[::1]']) {
      expect(none.matches(host, '6443')).toBe(true);
    }
  });
});

describe('proxyForServer', () => {
  const https = new URL('https://api.example.com:6443');
  const http = new URL('http://api.example.com');

  it('uses HTTPS_PROXY for https servers and HTTP_PROXY for http, upper case first', () => {
    const environment = {
      HTTPS_PROXY: 'http://secure-proxy:3128',
      https_proxy: 'http://lower:1',
      HTTP_PROXY: 'plain-proxy:8080',
    };
    expect(proxyForServer(https, undefined, environment)?.href).toBe('http://secure-proxy:3128/');
    expect(proxyForServer(http, undefined, environment)?.href).toBe('http://plain-proxy:8080/');
    expect(proxyForServer(https, undefined, { https_proxy: 'socks5://s:1080' })?.href).toBe(
      'socks5://s:1080',
    );
    expect(proxyForServer(https, undefined, { HTTP_PROXY: 'http://p:1' })).toBeUndefined();
  });

  it('applies NO_PROXY (or no_proxy) with the default port', () => {
    const environment = { HTTPS_PROXY: 'http://p:1', no_proxy: 'example.com:6443' };
    expect(proxyForServer(https, undefined, environment)).toBeUndefined();
    expect(proxyForServer(new URL('https://api.example.com'), undefined, environment)?.href).toBe(
      'http://p:1/',
    );
    expect(
      proxyForServer(new URL('https://api.example.com'), undefined, {
        HTTPS_PROXY: 'http://p:1',
        NO_PROXY: 'example.com:443',
      }),
    ).toBeUndefined();
  });

  it('never proxies a loopback server from the environment', () => {
    expect(
      proxyForServer(new URL('https://127.0.0.1:6443'), undefined, { HTTPS_PROXY: 'http://p:1' }),
    ).toBeUndefined();
  });

  it('uses proxy-url for every server and ignores the environment', () => {
    const environment = { HTTPS_PROXY: 'http://env:1', NO_PROXY: '*' };
    expect(proxyForServer(https, 'socks5://kube-proxy:1080', environment)?.href).toBe(
      'socks5://kube-proxy:1080',
    );
    expect(
      proxyForServer(new URL('https://127.0.0.1:6443'), 'http://p:3128', environment)?.href,
    ).toBe('http://p:3128/');
  });
});

describe('parseProxyUrl', () => {
  it('accepts http, https and socks5, adding http:// to a bare host', () => {
    expect(parseProxyUrl('proxy:3128').href).toBe('http://proxy:3128/');
    expect(parseProxyUrl('https://proxy').protocol).toBe('https:');
    expect(() => parseProxyUrl('ftp://proxy')).toThrow(/scheme must be http, https or socks5/);
  });

  it('never shows the proxy password', () => {
    const url = new URL('http://user:secret@proxy:3128');
    expect(redactUrl(url)).toBe('http://user:xxxxx@proxy:3128/');
    expect(() => parseProxyUrl('gopher://user:secret@proxy')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret') as string }),
    );
  });

  it('keeps the password out of every error about a proxy URL, cause included', () => {
    for (const [value, message] of [
      ['http://user:pa55-w0rd@[bad-host', 'invalid proxy address http://user:xxxxx@[bad-host'],
      ['http://user:pa55-w0rd@', 'invalid proxy address http://user:xxxxx@'],
      ['user:pa55-w0rd@proxy:port', 'invalid proxy address http://user:xxxxx@proxy:port'],
      [
        'gopher://user:pa55-w0rd@proxy',
        'invalid proxy address gopher://user:xxxxx@proxy: the scheme must be http, https or socks5',
      ],
    ] as const) {
      const error = (() => {
        try {
          parseProxyUrl(value);
        } catch (caught) {
          return caught;
        }
        throw new Error(`${value} was accepted`);
      })();
      expect(error).toBeInstanceOf(TransportError);
      expect((error as TransportError).code).toBe('ERR_TRANSPORT_PROXY');
      expect(secretLeaks(error, ['pa55-w0rd'])).toEqual([]);
      expect((error as TransportError).message).toBe(message);
    }
  });
});
