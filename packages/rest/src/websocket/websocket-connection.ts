import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { WebSocketError, type ApiErrorRequest } from '../errors.js';
import { describeTransportFailure } from '../retry/transport-failure.js';
import { MAX_TIMER_DELAY_MS, startTimer, type Timer } from '../timers/timer.js';
import type { FrameProtocolError } from './websocket-frames.js';
import { FrameParser, OPCODE, encodeFrame, type WebSocketFrame } from './websocket-frames.js';

/** WebSocketClose is how a {@link WebSocketConnection} ended. */
export interface WebSocketClose {
  /** code is the close code the server sent (1005: none; 1006: no close frame at all). */
  code: number;
  reason: string;
  /** error is set when the end was not a clean close (see {@link WebSocketError}). */
  error: WebSocketError | undefined;
}

/** WebSocketConnectionOptions tune a {@link WebSocketConnection}. */
export interface WebSocketConnectionOptions {
  /** maxMessageBytes bounds one message from the server (default 64 MiB; more is close 1009). */
  maxMessageBytes?: number;
  /** closeTimeoutMs is how long {@link WebSocketConnection.close} waits for the server's close frame (5 s). */
  closeTimeoutMs?: number;
  /**
   * pingIntervalMs is how often a ping is sent, so proxies and load balancers with an idle
   * timeout keep a quiet session (an exec waiting for input) open; 0 sends none (default 30 s).
   */
  pingIntervalMs?: number;
  /**
   * pongTimeoutMs is how long the server may stay silent after a ping — no pong, no frame at
   * all — before it counts as dead: the socket is destroyed and the connection closes with a
   * `WebSocketError` `ERR_REST_WEBSOCKET_PONG_TIMEOUT` (code 1006), so a peer or network that
   * stopped answering fails the session instead of hanging it. Time while this side has paused
   * reading (a slow consumer) is not counted: a pong waits behind the unread data. 0 waits
   * forever (default 30 s, so a dead peer is found within `pingIntervalMs + pongTimeoutMs`).
   */
  pongTimeoutMs?: number;
}

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;
const DEFAULT_PING_INTERVAL_MS = 30_000;
const DEFAULT_PONG_TIMEOUT_MS = 30_000;
// Close codes that end a connection normally: normal, going away, and no code given.
const CLEAN_CLOSE_CODES = new Set([1000, 1001, 1005]);

/**
 * WebSocketConnection is an RFC 6455 client connection on a socket that the transport upgraded
 * (its TLS, credentials, impersonation and proxy are the transport's). It sends whole binary
 * (or text) messages, masked; it answers pings, reassembles fragmented messages and runs the
 * close handshake, and pings the server every `pingIntervalMs`, giving up on a server silent
 * for `pongTimeoutMs` after a ping. There is no extension (no compression).
 *
 * Back-pressure both ways: {@link send} returns false when the socket's buffer is full (wait for
 * `'drain'`), and {@link pause} stops reading from the socket — messages already read wait in
 * order until {@link resume} — so a slow consumer slows the server down instead of buffering.
 *
 * Events: `'message'` (data: Buffer, binary: boolean), `'drain'`, and `'close'`
 * ({@link WebSocketClose}) exactly once, after the socket closed. No `'error'` event: failures
 * arrive as `close.error`.
 */
export class WebSocketConnection extends EventEmitter {
  /** protocol is the subprotocol the server chose (`''` when none). */
  readonly protocol: string;
  /** request is the upgrade request, for error messages. */
  readonly request: ApiErrorRequest;
  readonly #socket: Duplex;
  readonly #parser: FrameParser;
  readonly #maxMessageBytes: number;
  readonly #closeTimeoutMs: number;
  readonly #pongTimeoutMs: number;
  readonly #pending: WebSocketFrame[] = [];
  #fragments: Buffer[] = [];
  #fragmentsBytes = 0;
  #fragmentOpcode = 0;
  #paused = false;
  #closeSent = false;
  #closeReceived: { code: number; reason: string } | undefined;
  #failure: WebSocketError | undefined;
  #closeTimer: NodeJS.Timeout | undefined;
  #pingTimer: NodeJS.Timeout | undefined;
  /** #pongDeadline runs from a ping until the server sends anything. */
  #pongDeadline: Timer | undefined;
  #ended = false;
  #socketClosed = false;

  constructor(
    socket: Duplex,
    protocol: string,
    request: ApiErrorRequest,
    options: WebSocketConnectionOptions = {},
  ) {
    super();
    this.protocol = protocol;
    this.request = request;
    this.#socket = socket;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    this.#pongTimeoutMs = options.pongTimeoutMs ?? DEFAULT_PONG_TIMEOUT_MS;
    this.#parser = new FrameParser(this.#maxMessageBytes);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('drain', () => this.emit('drain'));
    socket.on('error', (error: Error) => {
      this.#failure ??= this.#error(
        'ERR_REST_WEBSOCKET_CLOSED',
        `the connection failed: ${describeTransportFailure(error)}`,
        1006,
        error,
      );
    });
    socket.on('end', () => {
      // The server's half-close: nothing more will come, so finish our side too.
      if (!socket.destroyed) socket.end();
    });
    socket.on('close', () => this.#onSocketClose());
    socket.resume();
    const pingIntervalMs = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    if (pingIntervalMs > 0) {
      // The socket holds the process while the session is open; the timer never does.
      const every = Math.min(pingIntervalMs, MAX_TIMER_DELAY_MS);
      this.#pingTimer = setInterval(() => this.#ping(), every).unref();
    }
  }

  /** closed is true once the close handshake started or the socket ended. */
  get closed(): boolean {
    return this.#closeSent || this.#ended || this.#socket.destroyed;
  }

  /**
   * send sends one message made of `parts` (binary unless `binary` is false). It returns false
   * when the socket's buffer is over its high-water mark: wait for `'drain'` before sending
   * more. After the close handshake started, messages are dropped (and true is returned).
   */
  send(parts: Uint8Array | readonly Uint8Array[], binary = true): boolean {
    if (this.closed) return true;
    const list = parts instanceof Uint8Array ? [parts] : parts;
    return this.#socket.write(encodeFrame(binary ? OPCODE.binary : OPCODE.text, list));
  }

  /** pause stops reading from the socket: no `'message'` until {@link resume}. */
  pause(): void {
    this.#paused = true;
    this.#socket.pause();
    // A pong would wait behind the data this side does not read: the silence is ours.
    this.#stopPongDeadline();
  }

  /** resume delivers the messages held back and reads from the socket again. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#drainPending();
    if (!this.#paused) this.#socket.resume();
  }

  /**
   * close starts the close handshake with `code` (default 1000) and a short `reason`; the socket
   * closes when the server answers, or after the close timeout. Idempotent.
   */
  close(code = 1000, reason = ''): void {
    if (this.#closeSent || this.#socket.destroyed) return;
    this.#closeSent = true;
    // From here the close timeout bounds the wait; a silent server is no longer a failure.
    this.#stopPongDeadline();
    const reasonBytes = Buffer.from(reason.slice(0, 120), 'utf8').subarray(0, 123);
    const body = Buffer.allocUnsafe(2 + reasonBytes.length);
    body.writeUInt16BE(code, 0);
    reasonBytes.copy(body, 2);
    this.#socket.write(encodeFrame(OPCODE.close, [body]));
    if (this.#closeReceived) {
      this.#socket.end();
      return;
    }
    const wait = Math.min(this.#closeTimeoutMs, MAX_TIMER_DELAY_MS);
    this.#closeTimer = setTimeout(() => this.#socket.destroy(), wait);
  }

  /**
   * destroy ends the connection at once, without a close handshake (`error` becomes close.error);
   * messages held back by {@link pause} are dropped, so `'close'` comes without waiting for a resume.
   */
  destroy(error?: WebSocketError): void {
    if (error) this.#failure ??= error;
    this.#pending.length = 0;
    this.#socket.destroy();
  }

  #error(
    code: WebSocketError['code'],
    message: string,
    closeCode: number | undefined,
    cause?: unknown,
  ): WebSocketError {
    return new WebSocketError(
      code,
      `websocket ${this.request.path}: ${message}`,
      closeCode === undefined
        ? { request: this.request, cause }
        : { request: this.request, closeCode, cause },
    );
  }

  #ping(): void {
    if (this.closed) return;
    this.#socket.write(encodeFrame(OPCODE.ping, []));
    if (this.#pongTimeoutMs > 0 && !this.#paused && !this.#pongDeadline) {
      // Not ref'd, like the ping timer: the socket is what holds the process.
      this.#pongDeadline = startTimer(() => this.#pongTimedOut(), this.#pongTimeoutMs, false);
    }
  }

  #pongTimedOut(): void {
    this.#pongDeadline = undefined;
    this.destroy(
      this.#error(
        'ERR_REST_WEBSOCKET_PONG_TIMEOUT',
        `the server sent nothing for ${this.#pongTimeoutMs} ms after a ping (no pong): the connection is dead`,
        1006,
      ),
    );
  }

  #stopPongDeadline(): void {
    this.#pongDeadline?.cancel();
    this.#pongDeadline = undefined;
  }

  #onData(chunk: Buffer): void {
    // Anything from the server shows it is alive, a pong or not.
    this.#stopPongDeadline();
    let frames: WebSocketFrame[];
    try {
      frames = this.#parser.push(chunk);
    } catch (error) {
      const protocolError = error as FrameProtocolError;
      this.#failure ??= this.#error(
        'ERR_REST_WEBSOCKET_PROTOCOL',
        protocolError.message,
        protocolError.closeCode,
      );
      this.close(protocolError.closeCode);
      this.#socket.destroy();
      return;
    }
    for (const frame of frames) this.#pending.push(frame);
    this.#drainPending();
  }

  #drainPending(): void {
    while (!this.#paused && this.#pending.length > 0) {
      const frame = this.#pending.shift() as WebSocketFrame;
      this.#onFrame(frame);
    }
    if (this.#pending.length === 0 && this.#socketClosed) this.#finish();
  }

  #onFrame(frame: WebSocketFrame): void {
    switch (frame.opcode) {
      case OPCODE.ping:
        if (!this.#closeSent) this.#socket.write(encodeFrame(OPCODE.pong, [frame.payload]));
        return;
      case OPCODE.pong:
        return;
      case OPCODE.close:
        this.#onClose(frame.payload);
        return;
      default:
        this.#onDataFrame(frame);
    }
  }

  #onDataFrame(frame: WebSocketFrame): void {
    if (this.#closeReceived) return;
    const continuation = frame.opcode === OPCODE.continuation;
    if (continuation !== this.#fragments.length > 0) {
      this.#protocolFailure(
        continuation ? 'a continuation frame without a message' : 'a new message mid-message',
      );
      return;
    }
    if (!continuation && frame.fin) {
      this.emit('message', frame.payload, frame.opcode === OPCODE.binary);
      return;
    }
    if (!continuation) this.#fragmentOpcode = frame.opcode;
    this.#fragments.push(frame.payload);
    this.#fragmentsBytes += frame.payload.length;
    if (this.#fragmentsBytes > this.#maxMessageBytes) {
      this.#failure ??= this.#error(
        'ERR_REST_WEBSOCKET_PROTOCOL',
        `a message over the limit of ${this.#maxMessageBytes} bytes`,
        1009,
      );
      this.close(1009);
      this.#pending.length = 0;
      this.#socket.destroy();
      return;
    }
    if (!frame.fin) return;
    const message = Buffer.concat(this.#fragments, this.#fragmentsBytes);
    this.#fragments = [];
    this.#fragmentsBytes = 0;
    this.emit('message', message, this.#fragmentOpcode === OPCODE.binary);
  }

  #protocolFailure(message: string): void {
    this.#failure ??= this.#error('ERR_REST_WEBSOCKET_PROTOCOL', message, 1002);
    this.close(1002);
    // Nothing after a protocol violation is delivered.
    this.#pending.length = 0;
    this.#socket.destroy();
  }

  #onClose(payload: Buffer): void {
    if (this.#closeReceived) return;
    const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
    const reason = payload.length > 2 ? payload.subarray(2).toString('utf8') : '';
    this.#closeReceived = { code, reason };
    if (!CLEAN_CLOSE_CODES.has(code)) {
      this.#failure ??= this.#error(
        'ERR_REST_WEBSOCKET_CLOSED',
        `the server closed the connection with code ${code}${reason ? ` (${reason})` : ''}`,
        code,
      );
    }
    if (this.#closeSent) {
      this.#socket.end();
      return;
    }
    // Echo the close (RFC 6455 §5.5.1), then end our side.
    this.close(code === 1005 ? 1000 : code);
  }

  #onSocketClose(): void {
    this.#socketClosed = true;
    clearTimeout(this.#closeTimer);
    clearInterval(this.#pingTimer);
    this.#stopPongDeadline();
    // Messages read before the close are still delivered (in order) to a paused consumer, even
    // when the connection failed after they arrived; destroy() is what drops them.
    if (this.#pending.length > 0) return;
    this.#finish();
  }

  #finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    const received = this.#closeReceived;
    let failure = this.#failure;
    if (!received && !failure && !this.#closeSent) {
      failure = this.#error(
        'ERR_REST_WEBSOCKET_CLOSED',
        'the connection ended without a close frame',
        1006,
      );
    }
    const close: WebSocketClose = {
      code: received?.code ?? 1006,
      reason: received?.reason ?? '',
      error: failure,
    };
    this.emit('close', close);
  }
}
