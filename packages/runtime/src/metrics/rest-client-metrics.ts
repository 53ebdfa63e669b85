import type { TransportInterceptor } from '@k/transport';
import type { Counter, Histogram, MetricsSink } from './metrics-sink.js';

type Dispatch = ReturnType<TransportInterceptor['interceptor']>;
type DispatchHandler = Parameters<Dispatch>[1];
type Controller = Parameters<NonNullable<DispatchHandler['onResponseStart']>>[0];
type Headers = Parameters<NonNullable<DispatchHandler['onResponseStart']>>[2];
type UpgradeSocket = Parameters<NonNullable<DispatchHandler['onRequestUpgrade']>>[3];

// client-go's rest_client_request_duration_seconds buckets.
const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

interface RestClientMetrics {
  requests: Counter;
  duration: Histogram;
}

/** MeasuringHandler forwards every callback unchanged and records the attempt once it is answered or failed. */
class MeasuringHandler implements DispatchHandler {
  readonly #handler: DispatchHandler;
  readonly #metrics: RestClientMetrics;
  readonly #method: string;
  readonly #host: string;
  readonly #started = performance.now();
  #recorded = false;

  constructor(handler: DispatchHandler, metrics: RestClientMetrics, method: string, host: string) {
    this.#handler = handler;
    this.#metrics = metrics;
    this.#method = method;
    this.#host = host;
  }

  #record(code: string): void {
    if (this.#recorded) return;
    this.#recorded = true;
    this.#metrics.requests.inc({ code, method: this.#method, host: this.#host });
    this.#metrics.duration.observe(
      { verb: this.#method, host: this.#host },
      (performance.now() - this.#started) / 1000,
    );
  }

  onRequestStart(controller: Controller, context: unknown): void {
    this.#handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Controller,
    statusCode: number,
    headers: Headers,
    socket: UpgradeSocket,
  ): void {
    this.#record(String(statusCode));
    this.#handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: Headers,
    statusMessage?: string,
  ): void {
    this.#record(String(statusCode));
    this.#handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.#handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Controller, trailers: Headers): void {
    this.#handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Controller, error: Error): void {
    this.#record('<error>');
    this.#handler.onResponseError?.(controller, error);
  }
}

function hostOf(origin: unknown): string {
  try {
    return new URL(String(origin)).host;
  } catch {
    return '';
  }
}

/**
 * restClientMetricsInterceptor records client-go's REST client metrics for every attempt that
 * goes on the wire: `rest_client_requests_total{code,method,host}` (`code` is the HTTP status, or
 * `<error>` when no answer came) and `rest_client_request_duration_seconds{verb,host}` (until
 * the response headers, as client-go measures). Give it to the clientset's transport:
 * `inferClientset({ transport: { interceptors: [restClientMetricsInterceptor(metrics)] } })`.
 */
export function restClientMetricsInterceptor(sink: MetricsSink): TransportInterceptor {
  const metrics: RestClientMetrics = {
    requests: sink.counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
    }),
    duration: sink.histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'],
      buckets: LATENCY_BUCKETS,
    }),
  };
  return {
    name: 'k-runtime-rest-client-metrics',
    position: 'wire',
    interceptor: (dispatch) => (request, handler) =>
      dispatch(
        request,
        new MeasuringHandler(handler, metrics, request.method, hostOf(request.origin)),
      ),
  };
}
