import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RuntimeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { isScrapable, type MetricsSink } from '../metrics/metrics-sink.js';
import { renderHealthReport, type HealthChecks } from './health-checks.js';

/** ServerAddress is where a Manager serves `/healthz`, `/readyz` and `/metrics`. */
export interface ServerAddress {
  host: string;
  port: number;
  /** url is the base URL to probe (`http://127.0.0.1:8080`; a wildcard host is shown as loopback). */
  url: string;
}

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

/**
 * ManagerServer is the Manager's one HTTP server, with kube-apiserver's probe paths:
 * `GET /healthz` (liveness, also as `/livez`) and `GET /readyz` (readiness) — `200 ok` or `500`
 * with a line per check, `?verbose` lists them when healthy too, `?exclude=name` (repeatable)
 * skips a check; `GET /readyz/<name>` (and `/healthz/<name>`, `/livez/<name>`) runs only that
 * check (`200 ok`, `500 internal server error: reason`, `404` for an unknown name) — and
 * `GET /metrics` (the sink's scrape when it can render, else an empty exposition).
 */
export class ManagerServer {
  readonly #server: Server;
  readonly #health: HealthChecks;
  readonly #ready: HealthChecks;
  readonly #metrics: MetricsSink;
  #address: ServerAddress | undefined;

  constructor(health: HealthChecks, ready: HealthChecks, metrics: MetricsSink, logger: Logger) {
    this.#health = health;
    this.#ready = ready;
    this.#metrics = metrics;
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        logger.error('health server request failed', { error: String(error) });
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
    });
  }

  get address(): ServerAddress | undefined {
    return this.#address;
  }

  /** listen binds `port` (0: an ephemeral one) on `host` (default: every interface). */
  listen(port: number, host: string | undefined): Promise<ServerAddress> {
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        reject(
          new RuntimeError(
            'ERR_RUNTIME_LISTEN',
            `the manager could not serve health and metrics on ${host ?? '*'}:${port}: ${error.code ?? error.message}`,
            { cause: error },
          ),
        );
      };
      this.#server.once('error', onError);
      this.#server.listen(port, host, () => {
        this.#server.off('error', onError);
        const info = this.#server.address() as AddressInfo;
        this.#address = {
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
    const [, endpoint, name, ...rest] = url.pathname.split('/');
    const checks =
      endpoint === 'healthz' || endpoint === 'livez'
        ? this.#health
        : endpoint === 'readyz'
          ? this.#ready
          : undefined;
    if (checks && name === undefined) {
      const report = await checks.run(url.searchParams.getAll('exclude'));
      const body = renderHealthReport(report, url.searchParams.has('verbose'), endpoint!);
      response.writeHead(report.ok ? 200 : 500, TEXT_HEADERS);
      response.end(request.method === 'HEAD' ? undefined : body);
      return;
    }
    if (checks && name && rest.length === 0) {
      const checkName = decodedName(name);
      const result = checkName === undefined ? undefined : await checks.runOne(checkName);
      if (result) {
        const body = result.ok ? 'ok' : `internal server error: ${result.reason ?? 'unknown'}\n`;
        response.writeHead(result.ok ? 200 : 500, TEXT_HEADERS);
        response.end(request.method === 'HEAD' ? undefined : body);
        return;
      }
    }
    if (url.pathname === '/metrics') {
      const exposition = isScrapable(this.#metrics)
        ? await this.#metrics.scrape()
        : { contentType: EMPTY_EXPOSITION, body: '' };
      response.writeHead(200, { 'content-type': exposition.contentType });
      response.end(request.method === 'HEAD' ? undefined : exposition.body);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
  }
}
