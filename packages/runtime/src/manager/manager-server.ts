import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { RuntimeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { isScrapable, type MetricsSink } from '../metrics/metrics-sink.js';
import { renderHealthReport, type CheckResult, type HealthChecks } from './health-checks.js';

/** ServerKind is what one of a Manager's servers serves: the probes, `/metrics` or webhooks (HTTPS). */
export type ServerKind = 'probes' | 'metrics' | 'webhook';

/** ServerAddress is where one of a Manager's servers listens. */
export interface ServerAddress {
  /** serves is `probes` (`/healthz`, `/livez`, `/readyz`) or `metrics` (`/metrics`). */
  serves: ServerKind;
  host: string;
  port: number;
  /** url is the base URL to probe (`http://127.0.0.1:8081`; a wildcard host is shown as loopback). */
  url: string;
}

/** ServerLimits bound what clients of a server can hold: connections and the time to send a request. */
interface ServerLimits {
  maxConnections: number;
  /**
   * maxConnectionsPerPeer bounds one remote address, so that one client holding connections open
   * cannot take every one from the kubelet's probes.
   */
  maxConnectionsPerPeer: number;
  /** headersTimeoutMs closes a connection whose request headers did not all arrive in time (slowloris). */
  headersTimeoutMs: number;
  /** requestTimeoutMs closes a connection whose whole request did not arrive in time. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

// Probes and scrapes are small GETs from a few clients; a probe's checks take at most 5 s.
const LIMITS: ServerLimits = {
  maxConnections: 256,
  maxConnectionsPerPeer: 16,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
};

const EMPTY_EXPOSITION = 'text/plain; version=0.0.4; charset=utf-8';

function urlHost(host: string): string {
  if (host === '::' || host === '0.0.0.0' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** decodedName is a path segment decoded, or undefined when it is not valid percent-encoding. */
function decodedName(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const TEXT_HEADERS = {
  'content-type': 'text/plain; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** ManagerServerRoutes are what one server answers: the probe checks, or the metrics sink. */
export type ManagerServerRoutes =
  | { serves: 'probes'; health: HealthChecks; ready: HealthChecks }
  | { serves: 'metrics'; metrics: MetricsSink };

/**
 * ManagerServer is one of a Manager's HTTP servers. The probe server has kube-apiserver's probe
 * paths: `GET /healthz` (liveness, also as `/livez`) and `GET /readyz` (readiness) — `200 ok` or
 * `500` with a line per check, `?verbose` lists them when healthy too, `?exclude=name`
 * (repeatable) skips a check; `GET /readyz/<name>` (and `/healthz/<name>`, `/livez/<name>`) runs
 * only that check (`200 ok`, `500`, `404` for an unknown name). A failing check's reason is
 * withheld from the answer (`reason withheld`, as kube-apiserver and controller-runtime do: it
 * may name accounts, namespaces or hosts) and logged instead. The metrics server answers
 * `GET /metrics` (the sink's scrape when it can render, else an empty exposition). Both cap their
 * connections (in all and per remote address) and the time a client may take to send a request
 * (slowloris).
 */
export class ManagerServer {
  readonly #server: Server;
  readonly #routes: ManagerServerRoutes;
  readonly #logger: Logger;
  /** The last reason logged per failing check, so a probe every few seconds logs a change once. */
  readonly #loggedReasons = new Map<string, string>();
  readonly #perPeer = new Map<string, number>();
  #address: ServerAddress | undefined;

  constructor(routes: ManagerServerRoutes, logger: Logger) {
    this.#routes = routes;
    this.#logger = logger;
    this.#server = createServer(
      {
        headersTimeout: LIMITS.headersTimeoutMs,
        requestTimeout: LIMITS.requestTimeoutMs,
        keepAliveTimeout: LIMITS.keepAliveTimeoutMs,
        // Node checks the two timeouts above only this often (default 30 s).
        connectionsCheckingInterval: 1_000,
      },
      (request, response) => {
        this.#handle(request, response).catch((error: unknown) => {
          logger.error('manager server request failed', {
            serves: routes.serves,
            error: String(error),
          });
          if (!response.headersSent) response.writeHead(500);
          response.end();
        });
      },
    );
    this.#server.maxConnections = LIMITS.maxConnections;
    this.#server.on('connection', (socket: Socket) => this.#admit(socket));
  }

  /** #admit closes a connection past its peer's share; the counts are bounded by maxConnections. */
  #admit(socket: Socket): void {
    const peer = socket.remoteAddress ?? '';
    const open = (this.#perPeer.get(peer) ?? 0) + 1;
    if (open > LIMITS.maxConnectionsPerPeer) {
      socket.destroy();
      return;
    }
    this.#perPeer.set(peer, open);
    socket.once('close', () => {
      const left = (this.#perPeer.get(peer) ?? 1) - 1;
      if (left > 0) this.#perPeer.set(peer, left);
      else this.#perPeer.delete(peer);
    });
  }

  get address(): ServerAddress | undefined {
    return this.#address;
  }

  /** listen binds `port` (0: an ephemeral one) on `host` (undefined: every interface). */
  listen(port: number, host: string | undefined): Promise<ServerAddress> {
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        reject(
          new RuntimeError(
            'ERR_RUNTIME_LISTEN',
            `the manager could not serve ${this.#routes.serves} on ${host ?? '*'}:${port}: ${error.code ?? error.message}`,
            { cause: error },
          ),
        );
      };
      this.#server.once('error', onError);
      this.#server.listen(port, host, () => {
        this.#server.off('error', onError);
        const info = this.#server.address() as AddressInfo;
        this.#address = {
          serves: this.#routes.serves,
          host: info.address,
          port: info.port,
          url: `http://${urlHost(info.address)}:${info.port}`,
        };
        resolve(this.#address);
      });
    });
  }

  /** close stops listening and ends open connections (probes are short; none is worth waiting for). */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://manager');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const answer = (status: number, body: string, headers: Record<string, string>): void => {
      response.writeHead(status, headers);
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    const routes = this.#routes;
    if (routes.serves === 'metrics') {
      if (url.pathname === '/metrics') {
        const exposition = isScrapable(routes.metrics)
          ? await routes.metrics.scrape()
          : { contentType: EMPTY_EXPOSITION, body: '' };
        answer(200, exposition.body, { 'content-type': exposition.contentType });
        return;
      }
    } else {
      const [, endpoint, name, ...rest] = url.pathname.split('/');
      const checks =
        endpoint === 'healthz' || endpoint === 'livez'
          ? routes.health
          : endpoint === 'readyz'
            ? routes.ready
            : undefined;
      if (checks && name === undefined) {
        const report = await checks.run(url.searchParams.getAll('exclude'));
        this.#logFailures(endpoint!, report.checks);
        const body = renderHealthReport(report, url.searchParams.has('verbose'), endpoint!);
        answer(report.ok ? 200 : 500, body, TEXT_HEADERS);
        return;
      }
      if (checks && name && rest.length === 0) {
        const checkName = decodedName(name);
        const result = checkName === undefined ? undefined : await checks.runOne(checkName);
        if (result) {
          this.#logFailures(endpoint!, [result]);
          answer(
            result.ok ? 200 : 500,
            result.ok ? 'ok' : 'internal server error: reason withheld\n',
            TEXT_HEADERS,
          );
          return;
        }
      }
    }
    answer(404, 'not found\n', { 'content-type': 'text/plain; charset=utf-8' });
  }

  /** #logFailures logs each failing check's reason once per change (the answer withholds it). */
  #logFailures(endpoint: string, results: readonly CheckResult[]): void {
    for (const result of results) {
      const key = `${endpoint}/${result.name}`;
      if (result.ok) {
        this.#loggedReasons.delete(key);
        continue;
      }
      const reason = result.reason ?? 'unknown';
      if (this.#loggedReasons.get(key) === reason) continue;
      // Bounded by the number of checks: one entry per endpoint and check name.
      this.#loggedReasons.set(key, reason);
      this.#logger.info('health check failed', { endpoint, check: result.name, reason });
    }
  }
}
