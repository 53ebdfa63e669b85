import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ConnectionError, WebSocketError } from '../errors.js';
import type { RestRequest } from '../request/rest-request.js';
import { describeTransportFailure, classifyTransportFailure } from '../retry/transport-failure.js';
import type { RateLimiter } from '../throttle/token-bucket.js';
import { BufferingHandler, type BufferedAttempt } from '../client/buffering-handler.js';
import { apiErrorFromResponse } from '../client/request-executor.js';
import { RequestScope } from '../client/request-scope.js';
import { WebSocketConnection, type WebSocketConnectionOptions } from './websocket-connection.js';

/** WebSocketOptions are what {@link openWebSocket} asks the server for. */
export interface WebSocketOptions extends WebSocketConnectionOptions {
  /** protocols are the subprotocols offered, preferred first (`Sec-WebSocket-Protocol`). */
  protocols: readonly string[];
}

/** The GUID of RFC 6455 §1.3 that the server's accept key is derived with. */
const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

interface Upgraded {
  statusCode: number;
  headers: IncomingHttpHeaders;
  socket: Duplex;
}

/**
 * UpgradeHandler is the dispatch handler of one upgrade request: a 101 hands over the socket;
 * any other answer is read (up to what a Status needs) by a {@link BufferingHandler}.
 */
class UpgradeHandler implements Dispatcher.DispatchHandler {
  readonly answer: Promise<Upgraded | BufferedAttempt>;
  readonly #buffering: BufferingHandler;
  #upgraded!: (upgraded: Upgraded) => void;

  constructor(scope: RequestScope) {
    this.#buffering = new BufferingHandler(scope, MAX_ERROR_BODY_BYTES);
    const upgraded = new Promise<Upgraded>((resolve) => {
      this.#upgraded = resolve;
    });
    this.answer = Promise.race([upgraded, this.#buffering.promise]);
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#buffering.onRequestStart(controller);
    void context;
  }

  onRequestUpgrade(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#upgraded({ statusCode, headers, socket });
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    this.#buffering.onResponseStart(controller, statusCode, headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#buffering.onResponseData(controller, chunk);
  }

  onResponseEnd(): void {
    this.#buffering.onResponseEnd();
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#buffering.onResponseError(controller, error);
  }
}

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/**
 * openWebSocket sends `request` (a GET) as a WebSocket upgrade through `dispatcher` — for a
 * `Transport`, through its whole interceptor stack: impersonation, user agent, credentials (a
 * 401 is replayed once with fresh ones), the TLS identity's pool and its proxy — and resolves
 * with the {@link WebSocketConnection} once the server switched protocols and the handshake
 * checks out (accept key; a subprotocol from `options.protocols`). The request takes a throttle
 * token and is sent once (no retry: a refused exec did not run, but an accepted one may have).
 * Its timeout and signal bound the handshake; after it, the signal destroys the connection.
 *
 * A non-101 answer rejects with the server's `ApiError` (403 Forbidden, 404, 400 for a bad
 * container name); a failed connection with a `ConnectionError`; a broken handshake with a
 * `WebSocketError` `ERR_REST_WEBSOCKET_HANDSHAKE`.
 */
export async function openWebSocket(
  dispatcher: Dispatcher,
  origin: string,
  throttle: RateLimiter,
  request: RestRequest,
  options: WebSocketOptions,
): Promise<WebSocketConnection> {
  const scope = new RequestScope(request, request.timeoutMs ?? 0);
  const errorRequest = { method: request.method, path: request.path };
  let upgraded: Upgraded | undefined;
  try {
    if (!throttle.tryAcquire()) {
      const wait = throttle.acquire(scope.signal);
      if (wait !== undefined) await scope.guard(wait);
    }
    const key = randomBytes(16).toString('base64');
    const handler = new UpgradeHandler(scope);
    dispatcher.dispatch(
      {
        origin,
        path: request.query === '' ? request.path : request.path + request.query,
        method: 'GET',
        headers: {
          ...request.headers,
          'sec-websocket-key': key,
          'sec-websocket-version': '13',
          ...(options.protocols.length > 0
            ? { 'sec-websocket-protocol': options.protocols.join(', ') }
            : {}),
        },
        body: null,
        upgrade: 'websocket',
      },
      handler,
    );
    let answer: Upgraded | BufferedAttempt;
    try {
      answer = await handler.answer;
    } catch (error) {
      scope.throwIfAborted();
      throw new ConnectionError(
        `websocket ${request.path} failed: ${describeTransportFailure(error)}`,
        {
          request: errorRequest,
          attempts: 1,
          mayHaveReachedServer: classifyTransportFailure(error) !== 'unsent',
          cause: error,
        },
      );
    }
    if (!('socket' in answer)) {
      if (answer.failure) scope.throwIfAborted();
      throw apiErrorFromResponse(request, answer.statusCode, answer.headers, answer.body);
    }
    upgraded = answer;
    const { headers, socket } = answer;
    const expected = createHash('sha1')
      .update(key + ACCEPT_GUID)
      .digest('base64');
    const protocol = headerValue(headers, 'sec-websocket-protocol');
    let problem: string | undefined;
    if (answer.statusCode !== 101) problem = `status ${answer.statusCode} instead of 101`;
    else if (headerValue(headers, 'upgrade').toLowerCase() !== 'websocket') {
      problem = 'the server did not upgrade to websocket';
    } else if (headerValue(headers, 'sec-websocket-accept') !== expected) {
      problem = 'the server sent a wrong Sec-WebSocket-Accept';
    } else if (headerValue(headers, 'sec-websocket-extensions') !== '') {
      problem = 'the server chose an extension that was not offered';
    } else if (options.protocols.length > 0 && !options.protocols.includes(protocol)) {
      problem =
        protocol === ''
          ? `the server chose none of the subprotocols ${options.protocols.join(', ')}`
          : `the server chose subprotocol ${protocol}, which was not offered`;
    }
    if (problem) {
      socket.destroy();
      throw new WebSocketError(
        'ERR_REST_WEBSOCKET_HANDSHAKE',
        `websocket ${request.path}: ${problem}`,
        {
          request: errorRequest,
        },
      );
    }
    scope.throwIfAborted();
    return new WebSocketConnection(socket, protocol, errorRequest, options);
  } catch (error) {
    upgraded?.socket.destroy();
    throw error;
  } finally {
    scope.release();
  }
}
