import type {
  Http2SecureServer,
  Http2ServerRequest,
  Http2ServerResponse,
  ServerHttp2Session,
} from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Clientset, ResourceDescriptor } from '@k/clientset';
import { RuntimeError } from '../errors.js';
import { SILENT_LOGGER, type Logger } from '../logger.js';
import { NOOP_METRICS, type MetricsSink } from '../metrics/metrics-sink.js';
import type { ServerAddress } from '../manager/manager-server.js';
import { whenAborted } from '../manager/runnable.js';
import {
  admissionOperations,
  mutatingHandler,
  validatingHandler,
  type MutatingHandlers,
  type ValidatingHandlers,
} from './admission.js';
import { conversionHandler, type ConversionDefinition } from './conversion.js';
import { stringifyJson, type JsonValue } from './json-patch.js';
import { readBody, type BodyBudget } from './request-body.js';
import {
  DEFAULT_CERT_DIR,
  ServingCertificate,
  type WebhookCertificateOptions,
} from './serving-certificate.js';
import {
  applyWebhookConfigurations,
  webhookConfigurations,
  webhookManifests,
  type AppliedWebhookConfigurations,
  type ApplyWebhookConfigurationsOptions,
  type WebhookConfigurationOptions,
  type WebhookConfigurations,
} from './webhook-configurations.js';
import type {
  AdmissionRegistrationOptions,
  WebhookHandler,
  WebhookRegistration,
  WebhookReply,
} from './webhook-handler.js';

/**
 * WebhookResource names the resource an admission webhook is for: a {@link ResourceDescriptor}
 * (`webAppsResource` of generated code) or a typed or dynamic client, whose descriptor is taken.
 */
export type WebhookResource = ResourceDescriptor | { readonly descriptor: ResourceDescriptor };

/** InstallWebhooksOptions configure `WebhookServer.install`: where the API server calls, and how to apply. */
export type InstallWebhooksOptions = WebhookConfigurationOptions &
  ApplyWebhookConfigurationsOptions;

/** CONVERT_PATH serves every conversion webhook of a server, as controller-runtime's `/convert`. */
const CONVERT_PATH = '/convert';

/** WebhookServerAddress is where a webhook server listens (`url` is `https://…`; a wildcard host shows as loopback). */
export type WebhookServerAddress = ServerAddress & { readonly serves: 'webhook' };

/** WebhookServerOptions configure a {@link WebhookServer}; everything is optional. */
export interface WebhookServerOptions {
  /** port to listen on (default 9443, controller-runtime's; 0 picks a free one). */
  port?: number | undefined;
  /** host to listen on (default every interface: the API server calls the Pod's IP). */
  host?: string | undefined;
  /** certificate to serve (default `{ certDir: '/tmp/k8s-webhook-server/serving-certs' }`, files `tls.crt` and `tls.key`). */
  certificate?: WebhookCertificateOptions | undefined;
  /** certificateReloadIntervalMs is how often certificate files are read again besides watching them (default 10 s). */
  certificateReloadIntervalMs?: number | undefined;
  /**
   * maxRequestBytes bounds a request body (default 8 MiB: an AdmissionReview carries `object` and
   * `oldObject`, each up to the API server's ~3 MiB object limit); a larger one is answered 413
   * without being read.
   */
  maxRequestBytes?: number | undefined;
  /**
   * maxConversionRequestBytes bounds a ConversionReview's body (default 64 MiB): the API server
   * sends every object of a LIST that is not in the asked version in one review.
   */
  maxConversionRequestBytes?: number | undefined;
  /** maxBufferedBytes bounds the bodies of all calls held at once (default 256 MiB); past it a call is answered 503. */
  maxBufferedBytes?: number | undefined;
  /**
   * requestTimeoutMs bounds one call, body and handler (default 30 s, the longest webhook timeout
   * the API server allows): the handler's signal aborts then and the call is answered 504 (408
   * when the body had not all arrived).
   */
  requestTimeoutMs?: number | undefined;
  /** headersTimeoutMs closes an HTTP/1.1 connection whose request headers take longer (slowloris; default 10 s). */
  headersTimeoutMs?: number | undefined;
  /** maxConnections bounds the open connections (default 1024). */
  maxConnections?: number | undefined;
  /** maxConcurrentStreams bounds the calls at once on one HTTP/2 connection (default 250, as Go's HTTP/2 server). */
  maxConcurrentStreams?: number | undefined;
  logger?: Logger | undefined;
  /** metrics records `controller_runtime_webhook_*` per registered path, and the certificate reads. */
  metrics?: MetricsSink | undefined;
  /** onListening is told the address once the server listens. */
  onListening?: ((address: WebhookServerAddress) => void) | undefined;
}

const MIB = 1 << 20;
// Go's HTTP client (the API server's) drops idle connections after 90 s: the server waits longer, so
// it never closes a connection the client is about to reuse for a POST it would not retry.
const IDLE_TIMEOUT_MS = 120_000;
const HANDSHAKE_TIMEOUT_MS = 10_000;
// After the last call of a stop, how long answers and GOAWAYs get to flush before connections are cut.
const FLUSH_MS = 2_000;
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Registered {
  handler: WebhookHandler;
  registrations: WebhookRegistration[];
  maxRequestBytes: number;
}

type Request = Http2ServerRequest;
type Response = Http2ServerResponse;

function urlHost(host: string): string {
  if (host === '::' || host === '0.0.0.0' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!(Number.isInteger(chosen) && chosen > 0)) {
    throw new RuntimeError(
      'ERR_RUNTIME_INVALID_ARGUMENT',
      `webhook server ${name} ${String(chosen)} is not a positive whole number`,
    );
  }
  return chosen;
}

/**
 * WebhookServer serves webhook handlers over HTTPS, HTTP/1.1 and HTTP/2 on one port: `handle(path,
 * handler)` before it starts; `start(signal)` (a Manager runnable that runs on every replica,
 * leader or not) listens, serves until `signal` aborts, then stops accepting, lets the calls in
 * flight finish, closes idle HTTP/1.1 connections and sends HTTP/2 sessions a GOAWAY, and resolves.
 * Each call is a POST to a registered path (else 404, or 405 with `allow: POST`) with a body of at
 * most `maxRequestBytes` (413 beyond, not read), answered with the handler's status and its body
 * as JSON; a handler that throws is answered 500 and logged. The serving certificate is reloaded
 * when its files change (new connections get the new one, open ones keep theirs); a new pair that
 * does not read or match is logged and the old one stays. Clients are bounded: TLS 1.2 or later,
 * handshake, header and call timeouts, connections, streams per connection, session memory and
 * the bytes of all bodies held at once (ADR 0024).
 */
export class WebhookServer {
  /** needLeaderElection is false: standby replicas answer webhooks too. */
  readonly needLeaderElection = false;
  readonly #handlers = new Map<string, Registered>();
  readonly #conversions: ConversionDefinition<unknown>[] = [];
  readonly #options: WebhookServerOptions;
  readonly #logger: Logger;
  readonly #certificate: ServingCertificate;
  readonly #limits: {
    port: number;
    maxRequestBytes: number;
    maxConversionRequestBytes: number;
    requestTimeoutMs: number;
    headersTimeoutMs: number;
    maxConnections: number;
    maxConcurrentStreams: number;
  };
  readonly #budget: BodyBudget;
  readonly #metrics;
  readonly #calls = new Set<Promise<void>>();
  readonly #connections = new Set<Socket>();
  readonly #sessions = new Set<ServerHttp2Session>();
  /** Calls in flight per HTTP/1.1 connection, so a stop closes the idle ones at once. */
  readonly #http1Busy = new Map<TLSSocket, number>();
  #started = false;
  #stopping = false;
  #address: WebhookServerAddress | undefined;

  constructor(options: WebhookServerOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? SILENT_LOGGER;
    const metrics = options.metrics ?? NOOP_METRICS;
    const port = options.port ?? 9443;
    if (!(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
      throw new RuntimeError(
        'ERR_RUNTIME_INVALID_ARGUMENT',
        `webhook server port ${String(port)} is not a port`,
      );
    }
    this.#limits = {
      port,
      maxRequestBytes: positive('maxRequestBytes', options.maxRequestBytes, 8 * MIB),
      maxConversionRequestBytes: positive(
        'maxConversionRequestBytes',
        options.maxConversionRequestBytes,
        64 * MIB,
      ),
      requestTimeoutMs: positive('requestTimeoutMs', options.requestTimeoutMs, 30_000),
      headersTimeoutMs: positive('headersTimeoutMs', options.headersTimeoutMs, 10_000),
      maxConnections: positive('maxConnections', options.maxConnections, 1024),
      maxConcurrentStreams: positive('maxConcurrentStreams', options.maxConcurrentStreams, 250),
    };
    this.#budget = {
      available: positive('maxBufferedBytes', options.maxBufferedBytes, 256 * MIB),
    };
    this.#certificate = new ServingCertificate(
      options.certificate ?? { certDir: DEFAULT_CERT_DIR },
      {
        logger: this.#logger,
        metrics,
        pollIntervalMs: positive(
          'certificateReloadIntervalMs',
          options.certificateReloadIntervalMs,
          10_000,
        ),
      },
    );
    this.#metrics = {
      total: metrics.counter({
        name: 'controller_runtime_webhook_requests_total',
        help: 'Total number of admission requests by HTTP status code.',
        labelNames: ['webhook', 'code'],
      }),
      latency: metrics.histogram({
        name: 'controller_runtime_webhook_latency_seconds',
        help: 'Histogram of the latency of processing admission requests',
        labelNames: ['webhook', 'code'],
        buckets: LATENCY_BUCKETS,
      }),
      inFlight: metrics.gauge({
        name: 'controller_runtime_webhook_requests_in_flight',
        help: 'Current number of admission requests being served.',
        labelNames: ['webhook'],
      }),
    };
  }

  /**
   * handle serves `handler` at `path` (for a webhook of your own; the typed ones are `validating`,
   * `mutating` and `conversion`); `registration` describes it for the webhook configurations. A
   * path is taken once, and only before the server starts (ERR_RUNTIME_CONFIGURATION otherwise).
   */
  handle(path: string, handler: WebhookHandler, registration?: WebhookRegistration): this {
    this.#checkPath(path);
    this.#handlers.set(path, {
      handler,
      registrations: registration ? [registration] : [],
      maxRequestBytes: this.#limits.maxRequestBytes,
    });
    return this;
  }

  /**
   * validating serves `handlers` for `resource` at `/validate-<group>-<version>-<kind>`
   * (controller-runtime's path: dots of the group as dashes, the kind in lower case): each
   * operation with a handler is sent to it, and returning allows the request while throwing
   * `AdmissionDenied` refuses it (see {@link ValidatingHandlers}). `options` are the webhook's
   * entry in the ValidatingWebhookConfiguration (`configurations`, `install`, `manifests`).
   */
  validating<T extends object>(
    resource: WebhookResource,
    handlers: ValidatingHandlers<T>,
    options: AdmissionRegistrationOptions = {},
  ): this {
    const descriptor = admissionResource(resource, 'validating');
    const path = admissionPath('validate', descriptor);
    return this.handle(path, validatingHandler(handlers), {
      type: 'validating',
      path,
      resource: descriptor,
      operations: admissionOperations(handlers),
      options,
    });
  }

  /**
   * mutating serves `handlers` for `resource` at `/mutate-<group>-<version>-<kind>`: `mutate`
   * changes (or replaces) its copy of each created or updated object and the server answers the
   * JSON Patch to it (see {@link MutatingHandlers}). `options` are the webhook's entry in the
   * MutatingWebhookConfiguration.
   */
  mutating<T extends object>(
    resource: WebhookResource,
    handlers: MutatingHandlers<T>,
    options: AdmissionRegistrationOptions = {},
  ): this {
    const descriptor = admissionResource(resource, 'mutating');
    const path = admissionPath('mutate', descriptor);
    return this.handle(path, mutatingHandler(handlers), {
      type: 'mutating',
      path,
      resource: descriptor,
      operations: admissionOperations(handlers),
      options,
    });
  }

  /**
   * conversion serves the conversion webhook of one CRD's kind at `/convert` (every kind's, as
   * controller-runtime does), hub and spoke: each spoke version converts to the `hub` version and
   * back (see {@link ConversionDefinition}). The CRD's `spec.conversion` comes from
   * `configurations`, `install` or `manifests`. A kind is converted by one definition
   * (ERR_RUNTIME_CONFIGURATION for a second).
   */
  conversion<Hub, Spokes extends Record<string, unknown> = Record<string, unknown>>(
    definition: ConversionDefinition<Hub, Spokes>,
  ): this {
    const definitions = [...this.#conversions, definition as ConversionDefinition<unknown>];
    // Built now, so a bad or repeated definition fails here rather than at the first call.
    const handler = conversionHandler(definitions);
    const registration: WebhookRegistration = {
      type: 'conversion',
      path: CONVERT_PATH,
      crdName: `${definition.plural}.${definition.group}`,
      versions: [definition.hub, ...Object.keys(definition.spokes)],
    };
    // The first definition takes the path (refused if handle() has it); later ones join it.
    if (this.#conversions.length === 0) this.#checkPath(CONVERT_PATH);
    else this.#checkNotStarted(CONVERT_PATH);
    this.#conversions.push(definition);
    this.#handlers.set(CONVERT_PATH, {
      handler,
      registrations: [...(this.#handlers.get(CONVERT_PATH)?.registrations ?? []), registration],
      maxRequestBytes: this.#limits.maxConversionRequestBytes,
    });
    return this;
  }

  /** registrations are what `handle`, `validating`, `mutating` and `conversion` registered, in order. */
  registrations(): readonly WebhookRegistration[] {
    return [...this.#handlers.values()].flatMap(({ registrations }) => registrations);
  }

  /**
   * configurations are the ValidatingWebhookConfiguration, MutatingWebhookConfiguration and CRD
   * conversions that point the API server at this server's webhooks ({@link webhookConfigurations}):
   * `target` is the Service in front of it (or a URL), and `caBundle` defaults to the CA of a
   * self-signed certificate (with certificate files, give it, or let cert-manager inject it).
   */
  configurations(options: WebhookConfigurationOptions): WebhookConfigurations {
    return webhookConfigurations(this.registrations(), {
      ...options,
      caBundle: options.caBundle ?? this.certificateAuthority?.caBundle,
    });
  }

  /**
   * install applies `configurations(options)` with server-side apply ({@link
   * applyWebhookConfigurations}: the conversions' CRDs must exist) and returns what the API server
   * stored. It may run before the server listens: the API server calls it only once it is applied.
   */
  install(
    clientset: Clientset,
    options: InstallWebhooksOptions,
  ): Promise<AppliedWebhookConfigurations> {
    const { fieldManager, force, signal, ...configuration } = options;
    return applyWebhookConfigurations(clientset, this.configurations(configuration), {
      fieldManager,
      force,
      signal,
    });
  }

  /** manifests is `configurations(options)` as multi-document YAML for a `deploy/` folder ({@link webhookManifests}). */
  manifests(options: WebhookConfigurationOptions): Promise<string> {
    return webhookManifests(this.configurations(options));
  }

  #checkNotStarted(path: string): void {
    if (this.#started) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `webhook ${path} was added after the webhook server started`,
      );
    }
  }

  #checkPath(path: string): void {
    this.#checkNotStarted(path);
    if (typeof path !== 'string' || !/^\/[^?#\s]*$/.test(path)) {
      throw new RuntimeError(
        'ERR_RUNTIME_INVALID_ARGUMENT',
        `webhook path ${JSON.stringify(String(path).slice(0, 100))} must start with / and have no query, fragment or space`,
      );
    }
    if (this.#handlers.has(path)) {
      throw new RuntimeError('ERR_RUNTIME_CONFIGURATION', `webhook path ${path} is already served`);
    }
  }

  /** address is where the server listens, once it does (until it stops). */
  get address(): WebhookServerAddress | undefined {
    return this.#address;
  }

  /**
   * certificateAuthority is, for a self-signed certificate, its PEM (`caPem`, for a client's `ca`)
   * and `caBundle` (base64 of the PEM, for a webhook configuration); undefined for certificate files,
   * whose authority is the issuer's (cert-manager's CA injector fills `caBundle` then).
   */
  get certificateAuthority(): { readonly caPem: string; readonly caBundle: string } | undefined {
    return this.#certificate.selfSigned;
  }

  /** ready throws unless the server listens with a certificate loaded (the Manager's `webhook` ready check). */
  ready(): void {
    if (!this.#address) throw new Error('the webhook server is not listening');
    if (!this.#certificate.current) throw new Error('the webhook server has no certificate loaded');
  }

  /**
   * start loads the certificate, listens and serves until `signal` aborts, then stops gracefully
   * (see the class). It rejects with ERR_RUNTIME_WEBHOOK_CERTIFICATE when the certificate cannot
   * be loaded and ERR_RUNTIME_LISTEN when the port cannot be bound; a server starts once.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) {
      throw new RuntimeError('ERR_RUNTIME_CONFIGURATION', 'the webhook server was already started');
    }
    this.#started = true;
    const pair = await this.#certificate.load();
    // Loaded here, not at the top: a runtime without node:http2 fails only when a server starts.
    const { createSecureServer } = await import('node:http2');
    const server = createSecureServer({
      allowHTTP1: true,
      cert: pair.certPem,
      key: pair.keyPem,
      minVersion: 'TLSv1.2',
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      // nghttp2 already refuses floods of resets and invalid frames (maxSessionRejectedStreams,
      // maxSessionInvalidFrames keep Node's defaults); the streams and memory are ours to bound.
      settings: {
        maxConcurrentStreams: this.#limits.maxConcurrentStreams,
        maxHeaderListSize: 64 * 1024,
      },
      maxSessionMemory: 16,
      maxHeaderListPairs: 256,
      unknownProtocolTimeout: HANDSHAKE_TIMEOUT_MS,
    });
    server.maxConnections = this.#limits.maxConnections;
    // HTTP/1.1 over the same server (allowHTTP1): Node's slowloris bounds of node:http apply to it.
    const http1 = server as unknown as {
      headersTimeout: number;
      requestTimeout: number;
      keepAliveTimeout: number;
      connectionsCheckingInterval: number;
    };
    http1.headersTimeout = this.#limits.headersTimeoutMs;
    http1.requestTimeout = 0; // each call is bounded by requestTimeoutMs itself
    http1.keepAliveTimeout = IDLE_TIMEOUT_MS;
    http1.connectionsCheckingInterval = Math.min(
      1_000,
      Math.ceil(this.#limits.headersTimeoutMs / 2),
    );
    server.setTimeout(IDLE_TIMEOUT_MS); // an idle HTTP/2 session or TLS socket is closed
    server.on('connection', (socket: Socket) => {
      this.#connections.add(socket);
      socket.once('close', () => this.#connections.delete(socket));
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      if (socket.alpnProtocol === 'h2') return;
      // HTTP/1.1: counted from the handshake, so a stop ends a connection that never sent a request.
      this.#http1Busy.set(socket, 0);
      socket.once('close', () => this.#http1Busy.delete(socket));
    });
    server.on('session', (session: ServerHttp2Session) => {
      this.#sessions.add(session);
      session.once('close', () => this.#sessions.delete(session));
    });
    server.on('request', (request: Request, response: Response) => this.#serve(request, response));
    server.on('tlsClientError', (error: Error) =>
      this.#logger.debug('webhook tls handshake failed', { error: error.message }),
    );
    await this.#listen(server);
    const stopWatching = new AbortController();
    this.#certificate.watch(stopWatching.signal, (next) =>
      server.setSecureContext({ cert: next.certPem, key: next.keyPem, minVersion: 'TLSv1.2' }),
    );
    try {
      await whenAborted(signal);
    } finally {
      stopWatching.abort();
      await this.#stop(server);
    }
  }

  async #listen(server: Http2SecureServer): Promise<void> {
    const { port } = this.#limits;
    const host = this.#options.host;
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        reject(
          new RuntimeError(
            'ERR_RUNTIME_LISTEN',
            `the webhook server could not listen on ${host ?? '*'}:${port}: ${error.code ?? error.message}`,
            { cause: error },
          ),
        );
      };
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        resolve();
      });
    });
    server.on('error', (error: Error) =>
      this.#logger.error('webhook server error', { error: error.message }),
    );
    const info = server.address() as AddressInfo;
    this.#address = {
      serves: 'webhook',
      host: info.address,
      port: info.port,
      url: `https://${urlHost(info.address)}:${info.port}`,
    };
    this.#logger.info('serving webhooks', { url: this.#address.url });
    this.#options.onListening?.(this.#address);
  }

  async #stop(server: Http2SecureServer): Promise<void> {
    this.#stopping = true;
    this.#address = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const session of this.#sessions) session.close(); // GOAWAY: running streams finish
    for (const [socket, busy] of this.#http1Busy) if (busy === 0) socket.end();
    await Promise.allSettled([...this.#calls]);
    let flushTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      closed,
      new Promise((resolve) => {
        flushTimer = setTimeout(resolve, FLUSH_MS);
      }),
    ]);
    clearTimeout(flushTimer);
    for (const socket of this.#connections) socket.destroy();
    await closed;
    this.#logger.info('webhook server stopped');
  }

  #serve(request: Request, response: Response): void {
    const http1Socket = request.httpVersionMajor === 1 ? (request.socket as TLSSocket) : undefined;
    if (http1Socket && this.#http1Busy.has(http1Socket)) {
      this.#http1Busy.set(http1Socket, this.#http1Busy.get(http1Socket)! + 1);
    }
    const call = this.#call(request, response, http1Socket).finally(() => {
      this.#calls.delete(call);
      if (!http1Socket) return;
      const left = (this.#http1Busy.get(http1Socket) ?? 1) - 1;
      if (this.#http1Busy.has(http1Socket)) this.#http1Busy.set(http1Socket, left);
      if (this.#stopping && left === 0) http1Socket.end();
    });
    this.#calls.add(call);
  }

  async #call(
    request: Request,
    response: Response,
    http1Socket: TLSSocket | undefined,
  ): Promise<void> {
    const path = (request.url ?? '/').split('?', 1)[0]!;
    const registered = this.#handlers.get(path);
    // A refused request's body is not read: its connection (HTTP/1.1) or stream (HTTP/2) ends.
    if (!registered) {
      this.#answer(request, response, http1Socket, 404, { message: 'not found' }, {}, true);
      return;
    }
    if (request.method !== 'POST') {
      this.#answer(
        request,
        response,
        http1Socket,
        405,
        { message: 'only POST' },
        { allow: 'POST' },
        true,
      );
      return;
    }
    const labels = { webhook: path };
    const started = performance.now();
    this.#metrics.inFlight.inc(labels);
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          new DOMException(
            `webhook ${path} did not answer within ${this.#limits.requestTimeoutMs} ms`,
            'TimeoutError',
          ),
        ),
      this.#limits.requestTimeoutMs,
    );
    // The client going away ends the call too.
    const onClose = (): void => {
      if (!response.writableFinished) deadline.abort(new Error('the client closed the request'));
    };
    response.once('close', onClose);
    let status = 500;
    let release = (): void => {};
    try {
      const body = await readBody(request, {
        maxBytes: registered.maxRequestBytes,
        budget: this.#budget,
        signal: deadline.signal,
      });
      if (body.outcome !== 'read') {
        status = { tooLarge: 413, busy: 503, aborted: 408 }[body.outcome];
        this.#answer(request, response, http1Socket, status, { message: body.message }, {}, true);
        return;
      }
      release = body.release;
      const reply = await Promise.race([
        this.#run(registered.handler, path, body.bytes, request, deadline.signal),
        whenAborted(deadline.signal).then(() => undefined),
      ]);
      if (reply === undefined) {
        status = 504;
        this.#answer(request, response, http1Socket, status, {
          message: `the webhook did not answer within ${this.#limits.requestTimeoutMs} ms`,
        });
        return;
      }
      status = this.#answer(request, response, http1Socket, reply.status, reply.body);
    } finally {
      release();
      clearTimeout(timer);
      response.off('close', onClose);
      this.#metrics.inFlight.dec(labels);
      const code = { webhook: path, code: String(status) };
      this.#metrics.total.inc(code);
      this.#metrics.latency.observe(code, (performance.now() - started) / 1000);
    }
  }

  async #run(
    handler: WebhookHandler,
    path: string,
    body: Uint8Array,
    request: Request,
    signal: AbortSignal,
  ): Promise<WebhookReply> {
    try {
      return await handler({
        body,
        contentType: request.headers['content-type'],
        signal,
        logger: this.#logger,
      });
    } catch (error) {
      this.#logger.error('webhook handler failed', {
        webhook: path,
        error: error instanceof Error ? error.message : String(error),
      });
      return { status: 500, body: { message: 'internal error' } };
    }
  }

  /** #answer writes `body` as JSON with `status` (500 when either cannot be sent) and returns the status sent. */
  #answer(
    request: Request,
    response: Response,
    http1Socket: TLSSocket | undefined,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    unread = false,
  ): number {
    if (response.headersSent || response.destroyed) return status;
    let json: string;
    let code = status;
    try {
      if (!(Number.isInteger(status) && status >= 200 && status <= 599)) {
        throw new Error(`status ${String(status)} is not an HTTP status`);
      }
      json = encodeJson(body);
    } catch (error) {
      this.#logger.error('webhook reply cannot be sent', {
        webhook: request.url,
        error: error instanceof Error ? error.message : String(error),
      });
      code = 500;
      json = '{"message":"internal error"}';
    }
    const close = http1Socket !== undefined && (this.#stopping || unread);
    response.writeHead(code, {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(json)),
      ...(close ? { connection: 'close' } : {}),
    });
    response.end(json);
    if (unread && !http1Socket) {
      // HTTP/2: the answer is complete; refuse the rest of the body (RST_STREAM NO_ERROR).
      response.stream.close(0);
    }
    return code;
  }
}

/** admissionResource is the descriptor of `resource`, which must name its kind. */
function admissionResource(resource: WebhookResource, type: string): ResourceDescriptor {
  const descriptor = 'descriptor' in resource ? resource.descriptor : resource;
  if (
    typeof descriptor?.kind !== 'string' ||
    descriptor.kind === '' ||
    typeof descriptor.plural !== 'string' ||
    typeof descriptor.version !== 'string'
  ) {
    throw new RuntimeError(
      'ERR_RUNTIME_INVALID_ARGUMENT',
      `a ${type} webhook needs a resource with its kind, version and plural (a generated descriptor, or a typed or dynamic client)`,
    );
  }
  return descriptor;
}

/** admissionPath is controller-runtime's path of a webhook: `/validate-apps-k-example-v1-webapp`, `/validate--v1-pod`. */
function admissionPath(prefix: 'validate' | 'mutate', resource: ResourceDescriptor): string {
  return `/${prefix}-${resource.group.replaceAll('.', '-')}-${resource.version}-${resource.kind.toLowerCase()}`;
}

/**
 * encodeJson is `JSON.stringify(body)`, or, for a body nested deeper than its stack allows (a
 * converted custom resource of thousands of levels), the same text written without recursion.
 */
function encodeJson(body: unknown): string {
  try {
    return JSON.stringify(body) ?? 'null';
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyJson(body as JsonValue);
  }
}
