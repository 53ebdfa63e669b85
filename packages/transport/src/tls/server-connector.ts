import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, createSecureContext } from 'node:tls';
import type { buildConnector } from 'undici';
import { buildConnector as newConnector } from '../transport/undici-parts.js';
import type { ClientCertificate } from '../auth/credential-provider.js';
import {
  expectDuration,
  expectRecord,
  expectString,
  invalidArgument,
} from '../checks/argument-checks.js';
import { timerDelay } from '../checks/timer-delay.js';
import { TransportError } from '../errors.js';
import { httpConnectTunnel } from '../proxy/http-connect-tunnel.js';
import { redactUrl } from '../redaction/redact-url.js';
import { socks5Tunnel } from '../proxy/socks5-tunnel.js';
import type { TlsOptions } from './load-tls-options.js';

/** client-go's dialer: 30 s to connect (here: to connect, tunnel and finish the handshake). */
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** client-go's dialer: TCP keep-alive probes after 30 s idle. */
const DEFAULT_TCP_KEEP_ALIVE_MS = 30_000;

/** ServerConnectorOptions configure {@link ServerConnector}. */
export interface ServerConnectorOptions {
  tls: TlsOptions;
  /** providerCertificate is a client certificate from the credential provider (e.g. exec). */
  providerCertificate?: ClientCertificate | undefined;
  /** proxy, when set, is tunnelled through (http/https CONNECT, or SOCKS5). */
  proxy?: URL | undefined;
  /**
   * connectTimeoutMs bounds connecting, tunnelling and the TLS handshake (default
   * {@link DEFAULT_CONNECT_TIMEOUT_MS}); 0, and anything longer than a Node timer holds
   * (2^31-1 ms, ~24.8 days), means no timeout.
   */
  connectTimeoutMs?: number | undefined;
}

type Connector = buildConnector.connector;
type ConnectOptions = buildConnector.Options;
type ConnectCallback = buildConnector.Callback;

/**
 * ServerConnector is the undici `connect` function of one connection pool: it opens every new
 * connection to the API server, directly or through the proxy's tunnel, and runs TLS with
 * options decided per connection, so a rotated client certificate file is presented on new
 * connections without a restart. Client certificate precedence is client-go's: static data, then
 * the reloading files, then the credential provider's certificate. `tls-server-name` is sent as
 * SNI and is the name the server certificate is verified against; TLS 1.2 is the minimum;
 * verification is skipped only with `insecure`.
 *
 * Concurrency: called by undici for each new socket; safe to run concurrently.
 */
export class ServerConnector {
  readonly #options: ServerConnectorOptions;
  readonly #timeoutMs: number;
  #certificate: ClientCertificate | undefined;
  #connector: Connector | undefined;

  constructor(options: ServerConnectorOptions) {
    const where = 'ServerConnector';
    expectRecord(options, where, 'options', 'an object ({ tls, proxy?, connectTimeoutMs? })');
    expectRecord(options.tls, where, 'options.tls', 'TlsOptions (from loadTlsOptions)');
    expectString(options.tls.identity, where, 'options.tls.identity', true);
    if (options.proxy !== undefined && !(options.proxy instanceof URL)) {
      throw invalidArgument(
        where,
        'options.proxy',
        'a URL (from parseProxyUrl) or undefined',
        options.proxy,
      );
    }
    if (options.providerCertificate !== undefined) {
      expectRecord(
        options.providerCertificate,
        where,
        'options.providerCertificate',
        'a { certificate, key } of PEM strings or undefined',
      );
      expectString(
        options.providerCertificate.certificate,
        where,
        'options.providerCertificate.certificate',
      );
      expectString(options.providerCertificate.key, where, 'options.providerCertificate.key');
    }
    this.#options = options;
    this.#timeoutMs = expectDuration(
      options.connectTimeoutMs,
      where,
      'options.connectTimeoutMs',
      DEFAULT_CONNECT_TIMEOUT_MS,
    );
  }

  /** connect is undici's `connect` option; it is bound, so it can be passed as it is. */
  readonly connect = (options: ConnectOptions, callback: ConnectCallback): void => {
    this.#open(options).then(
      ({ connector, socket }) => {
        const servername = this.#options.tls.serverName ?? options.servername;
        if (options.protocol !== 'https:') {
          if (socket) callback(null, socket);
          else connector({ ...options, servername }, callback);
          return;
        }
        connector({ ...options, servername, ...(socket ? { httpSocket: socket } : {}) }, callback);
      },
      (error: Error) => callback(error, null),
    );
  };

  async #open(options: ConnectOptions): Promise<{ connector: Connector; socket?: Socket }> {
    const { tls } = this.#options;
    const certificate =
      tls.clientCertificate ??
      (tls.clientCertificateFiles ? await tls.clientCertificateFiles.current() : undefined) ??
      this.#options.providerCertificate;
    const connector = this.#connectorFor(certificate);
    const proxy = this.#options.proxy;
    if (!proxy) return { connector };
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    const socket = await this.#tunnel(proxy, options.hostname, port);
    return { connector, socket };
  }

  #connectorFor(certificate: ClientCertificate | undefined): Connector {
    if (this.#connector && this.#certificate === certificate) return this.#connector;
    const { tls } = this.#options;
    // One secure context for every connection with this certificate: given the PEM text instead,
    // Node parses the CA, certificate and key again for each new connection (several ms of CPU).
    const secureContext = createSecureContext({
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(certificate ? { cert: certificate.certificate, key: certificate.key } : {}),
      minVersion: 'TLSv1.2',
    });
    this.#certificate = certificate;
    this.#connector = newConnector({
      secureContext,
      ...(tls.serverName ? { servername: tls.serverName } : {}),
      rejectUnauthorized: !tls.insecure,
      // undici: 0 is no timeout (and a longer one would overflow its timer).
      timeout: timerDelay(this.#timeoutMs) ?? 0,
      keepAlive: true,
      keepAliveInitialDelay: DEFAULT_TCP_KEEP_ALIVE_MS,
      // HTTP/1.1 only (ADR 0012): undici 8 offers h2 in ALPN by default, and kube-apiserver
      // takes it.
      allowH2: false,
    });
    return this.#connector;
  }

  /**
   * #tunnel opens the tunnel to `host:port` through the proxy within the connect timeout. The
   * socket to the proxy exists from the first moment, so whatever stalls — the TCP connect, the
   * TLS handshake with an https proxy, the CONNECT or SOCKS5 exchange — the timeout destroys it
   * and nothing is left open.
   */
  async #tunnel(proxy: URL, host: string, port: number): Promise<Socket> {
    const proxyPort =
      Number(proxy.port) ||
      (proxy.protocol === 'https:' ? 443 : proxy.protocol === 'socks5:' ? 1080 : 80);
    const proxyHost = proxy.hostname.replace(/^\[(.*)\]$/, '$1');
    const { socket, connected } = this.#connectToProxy(proxy, proxyHost, proxyPort);
    const delay = timerDelay(this.#timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    try {
      const tunnel = (async () => {
        await connected;
        socket.setNoDelay(true);
        socket.setKeepAlive(true, DEFAULT_TCP_KEEP_ALIVE_MS);
        return proxy.protocol === 'socks5:'
          ? socks5Tunnel(socket, proxy, host, port)
          : httpConnectTunnel(socket, proxy, host, port);
      })();
      if (delay === undefined) return await tunnel;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${this.#timeoutMs}ms`)), delay);
      });
      return await Promise.race([tunnel, timeout]);
    } catch (error) {
      socket.destroy();
      throw new TransportError(
        'ERR_TRANSPORT_PROXY',
        `proxy ${redactUrl(proxy)}: ${(error as Error).message}`,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** #connectToProxy starts connecting; `connected` settles when the socket is usable. */
  #connectToProxy(
    proxy: URL,
    host: string,
    port: number,
  ): { socket: Socket; connected: Promise<void> } {
    const { tls } = this.#options;
    // An https proxy is verified with the cluster's TLS settings, as Go's transport does.
    const socket =
      proxy.protocol === 'https:'
        ? connectTls({
            host,
            port,
            ...(isIP(host) ? {} : { servername: host }),
            ...(tls.ca ? { ca: tls.ca } : {}),
            rejectUnauthorized: !tls.insecure,
            minVersion: 'TLSv1.2',
            ALPNProtocols: ['http/1.1'],
          })
        : connectTcp({ host, port });
    const event = proxy.protocol === 'https:' ? 'secureConnect' : 'connect';
    const connected = new Promise<void>((resolve, reject) => {
      socket.once(event, () => {
        socket.off('error', reject);
        resolve();
      });
      socket.once('error', reject);
    });
    return { socket, connected };
  }
}
