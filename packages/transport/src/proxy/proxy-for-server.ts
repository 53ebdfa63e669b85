import { redactUrl, redactUrlText } from '../redaction/redact-url.js';
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import {
  expectOptionalString,
  expectRecord,
  expectString,
  invalidArgument,
} from '../checks/argument-checks.js';
import { TransportError } from '../errors.js';

/** The proxy URL schemes the transport can tunnel through. */
const PROXY_SCHEMES: readonly string[] = ['http:', 'https:', 'socks5:'];

type Matcher = (host: string, port: string, ipVersion: 0 | 4 | 6) => boolean;

/**
 * NoProxy is a parsed `NO_PROXY` list with Go's `httpproxy` semantics (which client-go uses,
 * CIDR entries included):
 * - `*` alone disables proxying;
 * - `10.0.0.0/8`, `fd00::/8`: any IP host inside the range;
 * - `1.2.3.4`, `[::1]:8443`, `1.2.3.4:80`: that IP (and port when given);
 * - `example.com` matches it and every subdomain; `.example.com` and `*.example.com` only
 *   subdomains; `example.com:443` only on that port.
 * Entries are comma separated, trimmed and case-insensitive; malformed ones are ignored.
 */
export class NoProxy {
  readonly #ipMatchers: Matcher[] = [];
  readonly #domainMatchers: Matcher[] = [];
  readonly #all: boolean;

  constructor(value: string | undefined) {
    expectOptionalString(value, 'NoProxy', 'value (a NO_PROXY list)');
    let all = false;
    for (const raw of (value ?? '').split(',')) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      if (entry === '*') {
        all = true;
        break;
      }
      if (this.#addCidr(entry)) continue;
      let host = entry;
      let port = '';
      const split = splitHostPort(entry);
      if (split) {
        if (!split.host) continue;
        host = split.host;
        port = split.port;
      }
      const version = isIP(host);
      if (version !== 0) {
        const wanted = normalizeIp(host, version);
        this.#ipMatchers.push(
          (candidate, candidatePort, candidateVersion) =>
            candidateVersion === version &&
            normalizeIp(candidate, candidateVersion) === wanted &&
            (port === '' || port === candidatePort),
        );
        continue;
      }
      if (host.startsWith('*.')) host = host.slice(1);
      const matchHost = !host.startsWith('.');
      if (matchHost) host = `.${host}`;
      const ascii = domainToASCII(host.slice(1));
      if (ascii) host = `.${ascii}`;
      const suffix = host;
      this.#domainMatchers.push(
        (candidate, candidatePort) =>
          (candidate.endsWith(suffix) || (matchHost && candidate === suffix.slice(1))) &&
          (port === '' || port === candidatePort),
      );
    }
    this.#all = all;
  }

  /**
   * matches reports whether a request to `host` (a name or an IP, brackets optional) on `port`
   * bypasses the proxy. `localhost` and loopback IPs always do, whatever the list says.
   */
  matches(host: string, port: string): boolean {
    const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (bare === 'localhost') return true;
    const version = isIP(bare) as 0 | 4 | 6;
    if (version !== 0 && isLoopback(bare, version)) return true;
    if (this.#all) return true;
    if (version !== 0 && this.#ipMatchers.some((match) => match(bare, port, version))) return true;
    return this.#domainMatchers.some((match) => match(bare, port, version));
  }

  #addCidr(entry: string): boolean {
    const slash = entry.indexOf('/');
    if (slash < 0) return false;
    const address = entry.slice(0, slash);
    const prefixText = entry.slice(slash + 1);
    const version = isIP(address);
    const prefix = Number(prefixText);
    if (version === 0 || !/^\d+$/.test(prefixText) || prefix > (version === 4 ? 32 : 128)) {
      return false;
    }
    const list = new BlockList();
    list.addSubnet(address, prefix, version === 4 ? 'ipv4' : 'ipv6');
    this.#ipMatchers.push((candidate, _port, candidateVersion) =>
      list.check(candidate, candidateVersion === 6 ? 'ipv6' : 'ipv4'),
    );
    return true;
  }
}

function splitHostPort(entry: string): { host: string; port: string } | undefined {
  const bracketed = /^\[([^\]]*)\]:(\d*)$/.exec(entry);
  if (bracketed) return { host: bracketed[1] as string, port: bracketed[2] as string };
  const colon = entry.lastIndexOf(':');
  if (colon < 0 || entry.indexOf(':') !== colon) return undefined;
  return { host: entry.slice(0, colon), port: entry.slice(colon + 1) };
}

function normalizeIp(ip: string, version: number): string {
  if (version === 4) return ip;
  // The WHATWG URL parser writes IPv6 addresses in their canonical (compressed) form.
  return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

function isLoopback(ip: string, version: number): boolean {
  return LOOPBACK.check(ip, version === 6 ? 'ipv6' : 'ipv4');
}

/**
 * parseProxyUrl parses a proxy URL as Go does for the environment: a value without a scheme is
 * `http://<value>`. Only http, https and socks5 are accepted (`ERR_TRANSPORT_PROXY`, naming the
 * URL without its password). The error's cause, if any, holds no part of the URL either (the
 * URL parser's own error carries the whole input).
 */
export function parseProxyUrl(value: string): URL {
  expectString(value, 'parseProxyUrl', 'value (a proxy URL)');
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    const cause = new TypeError('Invalid URL') as NodeJS.ErrnoException;
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code === 'string') cause.code = code;
    throw new TransportError(
      'ERR_TRANSPORT_PROXY',
      `invalid proxy address ${redactUrlText(text)}`,
      { cause },
    );
  }
  if (!PROXY_SCHEMES.includes(url.protocol) || !url.hostname) {
    throw new TransportError(
      'ERR_TRANSPORT_PROXY',
      `invalid proxy address ${redactUrl(url)}: the scheme must be http, https or socks5`,
    );
  }
  return url;
}

/**
 * proxyForServer returns the proxy to reach `server` through, or `undefined` to connect
 * directly. An explicit `proxyUrl` (kubeconfig `proxy-url`) is used for every request, ignoring
 * the environment (client-go). Otherwise the environment decides like Go's
 * `ProxyFromEnvironment`: `HTTPS_PROXY`/`https_proxy` for an https server, `HTTP_PROXY`/
 * `http_proxy` for http, unless {@link NoProxy} (`NO_PROXY`/`no_proxy`) exempts the server;
 * localhost and loopback are never proxied. The environment is read when this is called (the
 * transport calls it once, when it is created).
 */
export function proxyForServer(
  server: URL,
  proxyUrl: string | undefined,
  environment: NodeJS.ProcessEnv = process.env,
): URL | undefined {
  if (!(server instanceof URL)) {
    throw invalidArgument('proxyForServer', 'server', 'a URL (new URL(server))', server);
  }
  expectOptionalString(proxyUrl, 'proxyForServer', 'proxyUrl');
  expectRecord(environment, 'proxyForServer', 'environment', 'an object (like process.env)');
  if (proxyUrl) return parseProxyUrl(proxyUrl);
  const https = server.protocol === 'https:';
  const value = https
    ? environment.HTTPS_PROXY || environment.https_proxy
    : environment.HTTP_PROXY || environment.http_proxy;
  if (!value) return undefined;
  const port = server.port || (https ? '443' : '80');
  const noProxy = new NoProxy(environment.NO_PROXY || environment.no_proxy);
  if (noProxy.matches(server.hostname, port)) return undefined;
  return parseProxyUrl(value);
}
