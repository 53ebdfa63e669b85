import type { WebSocketConnectionOptions } from '@k/rest/websocket';

/**
 * KeepAliveOptions say how a pod stream's WebSocket checks that its server is alive: it sends a
 * ping every `pingIntervalMs` (default 30 s; 0 sends none), and a server that then sends nothing
 * at all for `pongTimeoutMs` (default 30 s; 0 waits forever) fails the stream with a
 * `WebSocketError` `ERR_REST_WEBSOCKET_PONG_TIMEOUT`, instead of leaving it hanging on a dead
 * peer or a dropped network.
 */
export type KeepAliveOptions = Pick<WebSocketConnectionOptions, 'pingIntervalMs' | 'pongTimeoutMs'>;

/** keepAliveOf picks the keep-alive settings out of a call's options (only those that are set). */
export function keepAliveOf(options: KeepAliveOptions): KeepAliveOptions {
  return {
    ...(options.pingIntervalMs !== undefined ? { pingIntervalMs: options.pingIntervalMs } : {}),
    ...(options.pongTimeoutMs !== undefined ? { pongTimeoutMs: options.pongTimeoutMs } : {}),
  };
}
