import { Readable, Writable } from 'node:stream';
import type { WebSocketClose, WebSocketConnection } from '@k/rest/websocket';

/** CLOSE_SIGNAL is v5.channel.k8s.io's first byte of "this channel is done" (`[255, channel]`). */
const CLOSE_SIGNAL = 255;
/** Input is sent in messages of at most this size, so one write never makes one huge frame. */
const MAX_MESSAGE_BYTES = 256 * 1024;

/**
 * ChannelMux carries the Kubernetes channel protocol (`*.channel.k8s.io`) on one WebSocket: each
 * binary message starts with its channel's byte. Output channels become `Readable`s and input
 * channels `Writable`s with back-pressure both ways: a full readable pauses the connection (so
 * the server's writes, and in the end the process in the container, wait) until it is read, and
 * a writable's callback waits for the socket to drain. Other channels go to `onMessage`.
 */
export class ChannelMux {
  readonly connection: WebSocketConnection;
  /** closed settles with the connection's close, after every readable has ended. */
  readonly closed: Promise<WebSocketClose>;
  readonly #readables = new Map<number, ChannelReadable>();
  readonly #full = new Set<number>();
  readonly #handlers = new Map<number, (payload: Buffer) => void>();

  constructor(connection: WebSocketConnection) {
    this.connection = connection;
    connection.on('message', (data: Buffer) => this.#onMessage(data));
    this.closed = new Promise((resolve) => {
      connection.once('close', (close: WebSocketClose) => {
        for (const readable of this.#readables.values()) readable.finish();
        resolve(close);
      });
    });
  }

  /** readable returns the stream of `channel`'s output (created once per channel). */
  readable(channel: number, transform?: (payload: Buffer) => Buffer | undefined): Readable {
    let readable = this.#readables.get(channel);
    if (!readable) {
      readable = new ChannelReadable(() => this.#wantMore(channel), transform);
      this.#readables.set(channel, readable);
    }
    return readable;
  }

  /**
   * writable returns a stream whose writes go to `channel`. Ending it sends v5's close signal
   * when `closeSignal` is true (on v4 the server cannot be told, so nothing is sent).
   */
  writable(channel: number, closeSignal: boolean): Writable {
    return new Writable({
      highWaterMark: 64 * 1024,
      write: (chunk: Buffer, _encoding, callback) => this.#send(channel, chunk, callback),
      final: (callback) => {
        if (closeSignal) this.connection.send(Buffer.of(CLOSE_SIGNAL, channel));
        callback();
      },
    });
  }

  /** onMessage routes `channel`'s messages (payload without the channel byte) to `handler`. */
  onMessage(channel: number, handler: (payload: Buffer) => void): void {
    this.#handlers.set(channel, handler);
  }

  /** send sends one message on `channel` (control channels: resize). */
  send(channel: number, payload: Buffer): boolean {
    return this.connection.send([Buffer.of(channel), payload]);
  }

  #send(channel: number, chunk: Buffer, callback: (error?: Error | null) => void): void {
    const prefix = Buffer.of(channel);
    let ready = true;
    for (let offset = 0; offset < chunk.length; offset += MAX_MESSAGE_BYTES) {
      ready = this.connection.send([prefix, chunk.subarray(offset, offset + MAX_MESSAGE_BYTES)]);
    }
    if (ready || this.connection.closed) {
      callback();
      return;
    }
    const done = (): void => {
      this.connection.off('drain', done);
      this.connection.off('close', done);
      callback();
    };
    this.connection.on('drain', done);
    this.connection.on('close', done);
  }

  #onMessage(data: Buffer): void {
    if (data.length === 0) return;
    const channel = data[0] as number;
    const payload = data.subarray(1);
    const readable = this.#readables.get(channel);
    if (readable) {
      if (!readable.deliver(payload)) {
        this.#full.add(channel);
        this.connection.pause();
      }
      return;
    }
    this.#handlers.get(channel)?.(payload);
  }

  #wantMore(channel: number): void {
    if (!this.#full.delete(channel)) return;
    if (this.#full.size === 0) this.connection.resume();
  }
}

/** ChannelReadable is one output channel; see {@link ChannelMux.readable}. */
class ChannelReadable extends Readable {
  readonly #onRead: () => void;
  readonly #transform: ((payload: Buffer) => Buffer | undefined) | undefined;
  #finished = false;

  constructor(
    onRead: () => void,
    transform: ((payload: Buffer) => Buffer | undefined) | undefined,
  ) {
    super({ highWaterMark: 64 * 1024 });
    this.#onRead = onRead;
    this.#transform = transform;
  }

  /** deliver pushes a payload; false when the consumer is behind (pause the source). */
  deliver(payload: Buffer): boolean {
    if (this.#finished || this.destroyed) return true;
    const data = this.#transform ? this.#transform(payload) : payload;
    if (data === undefined || data.length === 0) return true;
    return this.push(data);
  }

  /** finish ends the stream (the connection closed); what was pushed is still read. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    if (!this.destroyed) this.push(null);
  }

  override _read(): void {
    this.#onRead();
  }
}
