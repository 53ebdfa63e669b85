/**
 * Request logging and a request id, as user interceptors in the transport stack.
 *
 * Two `TransportInterceptor`s, plain values passed to `createTransport`:
 *
 * - `request-id` at the `'request'` position (outermost): gives every request an `X-Request-Id`
 *   the caller did not set, so a 401 replay below carries the same id as the first attempt;
 * - `request-logger` at the `'wire'` position (innermost): logs what goes on the connection —
 *   every attempt, headers as sent (with `Authorization` and other credentials redacted), the
 *   status, the body size as it arrived (still gzip-encoded) and the API Priority and Fairness
 *   flow schema the server put the request in.
 *
 * It prints the resolved stack, asks for the server version and who the server says you are:
 *
 *   npx tsx packages/transport/examples/request-logging.ts [--kubeconfig=PATH] [--context=NAME]
 *
 * (against the built packages; add `--conditions=@k/source` after `tsx` to run the sources.)
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { loadKubeconfig, resolveConfig } from '@k/config';
import { authProviderPersisterFor } from '@k/config/edit';
import { createTransport, describeTransportStack, type TransportInterceptor } from '@k/transport';
import type { Dispatcher } from 'undici';

/** Headers whose values are credentials: logged as `[redacted]`, never as they are. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** headerPairs lists request headers of any form undici accepts as `[name, value]` pairs. */
function headerPairs(headers: Dispatcher.DispatchOptions['headers']): [string, string][] {
  const pairs: [string, string][] = [];
  if (headers == null) return pairs;
  if (Array.isArray(headers) && (headers.length === 0 || typeof headers[0] === 'string')) {
    for (let index = 0; index + 1 < headers.length; index += 2) {
      pairs.push([String(headers[index]), String(headers[index + 1])]);
    }
    return pairs;
  }
  const entries =
    Symbol.iterator in headers
      ? (headers as Iterable<[string, unknown]>)
      : Object.entries(headers as Record<string, unknown>);
  for (const [name, value] of entries) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) pairs.push([name, String(item)]);
    }
  }
  return pairs;
}

/** requestIdInterceptor sets `X-Request-Id: <random UUID>` on requests that have none. */
function requestIdInterceptor(): TransportInterceptor {
  return {
    name: 'request-id',
    position: 'request',
    interceptor: (dispatch) => (request, handler) => {
      const pairs = headerPairs(request.headers);
      if (pairs.some(([name]) => name.toLowerCase() === 'x-request-id')) {
        return dispatch(request, handler);
      }
      const headers = [...pairs.flat(), 'x-request-id', randomUUID()];
      return dispatch({ ...request, headers }, handler);
    },
  };
}

/**
 * LoggingHandler passes every callback on to the caller's handler unchanged and writes one
 * line when the response ends (or fails).
 */
class LoggingHandler implements Dispatcher.DispatchHandler {
  readonly #handler: Dispatcher.DispatchHandler;
  readonly #request: string;
  readonly #write: (line: string) => void;
  #status = 0;
  #bytes = 0;
  #details = '';

  constructor(handler: Dispatcher.DispatchHandler, request: string, write: (line: string) => void) {
    this.#handler = handler;
    this.#request = request;
    this.#write = write;
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#write(`← ${statusCode} ${this.#request} (upgraded)`);
    this.#handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    this.#status = statusCode;
    const encoding = headers['content-encoding'];
    const flowSchema = headers['x-kubernetes-pf-flowschema-uid'];
    this.#details =
      (encoding ? ` content-encoding=${String(encoding)}` : '') +
      (flowSchema ? ` flowschema-uid=${String(flowSchema)}` : '');
    this.#handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#bytes += chunk.length;
    this.#handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.#write(`← ${this.#status} ${this.#request} ${this.#bytes} bytes${this.#details}`);
    this.#handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    // undici's messages name the failure (ECONNREFUSED, a timeout), never a header.
    this.#write(`✗ ${this.#request}: ${error.message}`);
    this.#handler.onResponseError?.(controller, error);
  }
}

/**
 * requestLoggerInterceptor logs, at the `'wire'` position, each attempt as it goes out
 * (`→ GET /version` and its headers, credentials redacted) and as it ends (`← 200 GET /version
 * 263 bytes …`) through `write`.
 */
function requestLoggerInterceptor(write: (line: string) => void): TransportInterceptor {
  return {
    name: 'request-logger',
    position: 'wire',
    interceptor: (dispatch) => (request, handler) => {
      const line = `${request.method} ${request.path}`;
      const headers = headerPairs(request.headers)
        .map(([name, value]) =>
          CREDENTIAL_HEADERS.has(name.toLowerCase()) ? `${name}: [redacted]` : `${name}: ${value}`,
        )
        .join(', ');
      write(`→ ${line} {${headers}}`);
      return dispatch(request, new LoggingHandler(handler, line, write));
    },
  };
}

/** main builds a transport with both interceptors, then asks for the version and "who am I?". */
async function main(argv: readonly string[], write: (line: string) => void): Promise<void> {
  const option = (name: string) =>
    argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3);
  const kubeconfig = option('kubeconfig');
  const context = option('context');
  const config = resolveConfig(
    await loadKubeconfig(kubeconfig ? { explicitPath: kubeconfig } : {}),
    context ? { context } : {},
  );
  const transport = createTransport(config, {
    appName: 'request-logging-example',
    interceptors: [requestIdInterceptor(), requestLoggerInterceptor(write)],
    // Refreshed OIDC tokens go back into the kubeconfig file, as kubectl does.
    persistAuthProviderConfig: authProviderPersisterFor(config),
  });
  try {
    write(`stack: ${describeTransportStack(transport)}`);
    const base = transport.server.basePath;
    const version = await transport.request({ method: 'GET', path: `${base}/version` });
    const { gitVersion } = (await version.body.json()) as { gitVersion?: string };
    write(`server version ${gitVersion ?? `unknown (status ${version.statusCode})`}`);

    const review = await transport.request({
      method: 'POST',
      path: `${base}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    const body = (await review.body.json()) as { status?: { userInfo?: { username?: string } } };
    if (review.statusCode !== 201) throw new Error(`the server answered ${review.statusCode}`);
    write(`authenticated as ${body.status?.userInfo?.username ?? ''}`);
  } finally {
    await transport.close();
  }
}

main(process.argv.slice(2), console.log).catch((error: unknown) => {
  console.error(`request-logging: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
