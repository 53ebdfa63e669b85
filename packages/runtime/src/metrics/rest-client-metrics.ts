import { systemClock, type Clock, type ThrottleEvent } from '@k/rest';
import type { TransportInterceptor } from '@k/transport';
import type { Logger } from '../logger.js';
import type { Counter, Histogram, MetricsSink } from './metrics-sink.js';

type Dispatch = ReturnType<TransportInterceptor['interceptor']>;
type DispatchHandler = Parameters<Dispatch>[1];
type Controller = Parameters<NonNullable<DispatchHandler['onResponseStart']>>[0];
type Headers = Parameters<NonNullable<DispatchHandler['onResponseStart']>>[2];
type UpgradeSocket = Parameters<NonNullable<DispatchHandler['onRequestUpgrade']>>[3];

// client-go's rest_client_request_duration_seconds and rest_client_rate_limiter_duration_seconds buckets.
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

/** LONG_THROTTLE_WAIT_MS: a throttle wait longer than this is logged at debug (client-go's V(3)). */
const LONG_THROTTLE_WAIT_MS = 50;
/** EXTRA_LONG_THROTTLE_WAIT_MS: a longer wait is logged at info, at most once per interval. */
const EXTRA_LONG_THROTTLE_WAIT_MS = 1000;
/** EXTRA_LONG_LOG_INTERVAL_MS is client-go's interval between its level-0 throttling lines. */
const EXTRA_LONG_LOG_INTERVAL_MS = 10_000;

/** RestClientInstrumentationOptions configure {@link restClientInstrumentation}. */
export interface RestClientInstrumentationOptions {
  /** metrics receives client-go's REST client metrics (unset: none are recorded). */
  metrics?: MetricsSink | undefined;
  /** logger receives the long throttle waits (unset: none are logged). */
  logger?: Logger | undefined;
  /** clock spaces the info lines (default: the system clock). */
  clock?: Clock | undefined;
}

/**
 * RestClientInstrumentation is a clientset's (or REST client's) options that instrument it:
 * spread them into `inferClientset`'s, `createClientset`'s or `createRestClient`'s options. A
 * caller with its own `transport.interceptors` or `onThrottle` must merge them with these.
 */
export interface RestClientInstrumentation {
  /** transport adds {@link restClientMetricsInterceptor} (none without `metrics`). */
  transport: { interceptors: TransportInterceptor[] };
  /** onThrottle records each throttle wait and logs the long ones (@k/rest's `onThrottle`). */
  onThrottle: (event: ThrottleEvent) => void;
}

/**
 * restClientInstrumentation makes what an operator's clientset needs to show its requests and
 * its time in the client-side throttle, as client-go does: the request metrics of
 * {@link restClientMetricsInterceptor}, the histogram
 * `rest_client_rate_limiter_duration_seconds{verb,host}` of every throttle wait (0 included, in
 * client-go's buckets), and the log line `waited before sending request` for a wait over 50 ms —
 * at debug, or at info for a wait over 1 s unless another such line was written in the last 10 s
 * (client-go's `tryThrottleWithInfo`). Usage:
 * `inferClientset({ ...restClientInstrumentation({ metrics, logger }), throttle: { qps: 20, burst: 30 } })`.
 * The histogram is asked for once, here; the returned `onThrottle` is safe for any number of clients.
 */
export function restClientInstrumentation(
  options: RestClientInstrumentationOptions = {},
): RestClientInstrumentation {
  const { metrics, logger, clock = systemClock } = options;
  const waits = metrics?.histogram({
    name: 'rest_client_rate_limiter_duration_seconds',
    help: 'Client side rate limiter latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'],
    buckets: LATENCY_BUCKETS,
  });
  let lastInfoAt = -Infinity;
  const onThrottle = (event: ThrottleEvent): void => {
    const { request, host, waitedMs } = event;
    waits?.observe({ verb: request.method, host }, waitedMs / 1000);
    if (logger === undefined || !(waitedMs > LONG_THROTTLE_WAIT_MS)) return;
    const fields = {
      waitedMs: Math.round(waitedMs),
      reason: 'client-side throttling, not priority and fairness',
      verb: request.method,
      host,
      path: request.path,
    };
    if (waitedMs > EXTRA_LONG_THROTTLE_WAIT_MS) {
      const now = clock.now();
      if (now - lastInfoAt >= EXTRA_LONG_LOG_INTERVAL_MS) {
        lastInfoAt = now;
        logger.info('waited before sending request', fields);
        return;
      }
    }
    logger.debug('waited before sending request', fields);
  };
  return {
    transport: { interceptors: metrics ? [restClientMetricsInterceptor(metrics)] : [] },
    onThrottle,
  };
}
