// @k/rest/websocket: the connection `RequestBuilder.webSocket()` resolves with (exec, attach,
// port-forward), for code that builds a protocol on it.
export { WebSocketConnection } from './websocket/websocket-connection.js';
export type {
  WebSocketClose,
  WebSocketConnectionOptions,
} from './websocket/websocket-connection.js';
export type { WebSocketOptions } from './websocket/open-websocket.js';
