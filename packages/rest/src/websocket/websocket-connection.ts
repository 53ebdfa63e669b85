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
  maxMessageBytes?: number | undefined;
  /**
   * maxMessageFragments bounds the frames one fragmented message from the server may take, empty
   * ones included (default 16,384; more is close 1009): each costs work and memory of its own, so
   * the byte bound alone would let a server send millions of empty continuation frames.
   */
  maxMessageFragments?: number | undefined;
  /** closeTimeoutMs is how long {@link WebSocketConnection.close} waits for the server's close frame (5 s). */
  closeTimeoutMs?: number | undefined;
  /**
   * pingIntervalMs is how often a ping is sent, so proxies and load balancers with an idle
   * timeout keep a quiet session (an exec waiting for input) open; 0 sends none (default 30 s).
   */
  pingIntervalMs?: number | undefined;
  /**
   * pongTimeoutMs is how long the server may stay silent after a ping — no pong, no frame at
   * all — before it counts as dead: the socket is destroyed and the connection closes with a
   * `WebSocketError` `ERR_REST_WEBSOCKET_PONG_TIMEOUT` (code 1006), so a peer or network that
   * stopped answering fails the session instead of hanging it. Time while this side has paused
   * reading (a slow consumer) is not counted: a pong waits behind the unread data. 0 waits
   * forever (default 30 s, so a dead peer is found within `pingIntervalMs + pongTimeoutMs`).
   */
  pongTimeoutMs?: number | undefined;
}

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_MESSAGE_FRAGMENTS = 16_384;
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
 * for `pongTimeoutMs` after a ping. There is no extension (no compression). What the server
 * sends is bounded: a message by `maxMessageBytes` and `maxMessageFragments` (close 1009), a
 * masked or malformed frame is refused (close 1002), and while the socket does not drain only
 * the latest ping is answered, once it drains, so a server's pings never queue pongs unbounded.
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
  readonly #maxMessageFragments: number;
  readonly #closeTimeoutMs: number;
  readonly #pongTimeoutMs: number;
  /** #pending are frames read and not yet handled, from #pendingHead on (no shift: O(1) a frame). */
  readonly #pending: WebSocketFrame[] = [];
  #pendingHead = 0;
  /** #inMessage is true between a message's first fragment and its final one. */
  #inMessage = false;
  /** #fragments are the message's non-empty fragments so far; #fragmentCount counts all. */
  #fragments: Buffer[] = [];
  #fragmentCount = 0;
  #fragmentsBytes = 0;
  #fragmentOpcode = 0;
  /** #owedPong is the latest ping's payload, answered once the socket drains. */
  #owedPong: Buffer | undefined;
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
    this.#maxMessageFragments = options.maxMessageFragments ?? DEFAULT_MAX_MESSAGE_FRAGMENTS;
    this.#closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    this.#pongTimeoutMs = options.pongTimeoutMs ?? DEFAULT_PONG_TIMEOUT_MS;
    this.#parser = new FrameParser(this.#maxMessageBytes);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('drain', () => {
      this.#payOwedPong();
      this.emit('drain');
    });
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
    this.#dropPending();
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
    const pending = this.#pending;
    while (!this.#paused && this.#pendingHead < pending.length) {
      const frame = pending[this.#pendingHead] as WebSocketFrame;
      this.#pendingHead += 1;
      this.#onFrame(frame);
    }
    if (this.#pendingHead < pending.length) return;
    this.#dropPending();
    if (this.#socketClosed) this.#finish();
  }

  #dropPending(): void {
    this.#pending.length = 0;
    this.#pendingHead = 0;
  }

  /**
   * #pong answers a ping. While the socket is over its high-water mark (a server that does not
   * read), only the latest ping is answered, once the socket drains (RFC 6455 §5.5.3 allows it).
   */
  #pong(payload: Buffer): void {
    if (this.#closeSent) return;
    if (this.#socket.writableNeedDrain) {
      this.#owedPong = Buffer.from(payload); // a copy: a view would hold the whole read
      return;
    }
    this.#socket.write(encodeFrame(OPCODE.pong, [payload]));
  }

  #payOwedPong(): void {
    const payload = this.#owedPong;
    this.#owedPong = undefined;
    if (payload && !this.#closeSent) this.#socket.write(encodeFrame(OPCODE.pong, [payload]));
  }

  #onFrame(frame: WebSocketFrame): void {
    switch (frame.opcode) {
      case OPCODE.ping:
        this.#pong(frame.payload);
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
    // A flag, not the fragments kept: a message may start with an empty fragment.
    if (continuation !== this.#inMessage) {
      this.#protocolFailure(
        continuation ? 'a continuation frame without a message' : 'a new message mid-message',
        1002,
      );
      return;
    }
    if (!continuation && frame.fin) {
      this.emit('message', frame.payload, frame.opcode === OPCODE.binary);
      return;
    }
    if (!continuation) {
      this.#inMessage = true;
      this.#fragmentOpcode = frame.opcode;
    }
    this.#fragmentCount += 1;
    this.#fragmentsBytes += frame.payload.length;
    if (this.#fragmentsBytes > this.#maxMessageBytes) {
      this.#protocolFailure(`a message over the limit of ${this.#maxMessageBytes} bytes`, 1009);
      return;
    }
    if (this.#fragmentCount > this.#maxMessageFragments) {
      this.#protocolFailure(
        `a message in more than ${this.#maxMessageFragments} fragments (frames)`,
        1009,
      );
      return;
    }
    if (frame.payload.length > 0) this.#fragments.push(frame.payload);
    if (!frame.fin) return;
    const message = Buffer.concat(this.#fragments, this.#fragmentsBytes);
    this.#endMessage();
    this.emit('message', message, this.#fragmentOpcode === OPCODE.binary);
  }

  #endMessage(): void {
    this.#inMessage = false;
    this.#fragments = [];
    this.#fragmentCount = 0;
    this.#fragmentsBytes = 0;
  }

  /** #protocolFailure closes with `closeCode` (1002 bad frames, 1009 too big) and fails the connection. */
  #protocolFailure(message: string, closeCode: number): void {
    this.#failure ??= this.#error('ERR_REST_WEBSOCKET_PROTOCOL', message, closeCode);
    this.close(closeCode);
    // Nothing after a protocol violation is delivered, and what was gathered is let go.
    this.#dropPending();
    this.#endMessage();
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
    if (this.#pendingHead < this.#pending.length) return;
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
