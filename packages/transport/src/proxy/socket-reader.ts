import type { Socket } from 'node:net';

/**
 * SocketReader reads a proxy handshake from a socket: exact byte counts or up to a delimiter,
 * buffering what arrives early. {@link release} detaches it and puts back bytes read past the
 * handshake, so the socket can be handed on (to TLS, to undici). One reader per socket, one
 * pending read at a time.
 */
export class SocketReader {
  readonly #socket: Socket;
  #buffer: Buffer = Buffer.alloc(0);
  #waiter: (() => void) | undefined;
  #failure: Error | undefined;
  readonly #onData = (chunk: Buffer) => {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    this.#wake();
  };
  readonly #onEnd = () => this.#fail(new Error('the proxy closed the connection'));
  readonly #onError = (error: Error) => this.#fail(error);

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('error', this.#onError);
  }

  /** read resolves with exactly `length` bytes. */
  async read(length: number): Promise<Buffer> {
    while (this.#buffer.length < length) await this.#wait();
    const bytes = this.#buffer.subarray(0, length);
    this.#buffer = this.#buffer.subarray(length);
    return bytes;
  }

  /** readUntil resolves with the bytes up to and including `delimiter`, at most `limit` bytes. */
  async readUntil(delimiter: string, limit: number): Promise<Buffer> {
    for (;;) {
      const index = this.#buffer.indexOf(delimiter);
      if (index >= 0) return this.read(index + delimiter.length);
      if (this.#buffer.length > limit) throw new Error(`the proxy sent more than ${limit} bytes`);
      await this.#wait();
    }
  }

  /** release stops reading and returns unread bytes to the socket. */
  release(): void {
    this.#socket.off('data', this.#onData);
    this.#socket.off('end', this.#onEnd);
    this.#socket.off('error', this.#onError);
    this.#socket.pause();
    if (this.#buffer.length > 0) this.#socket.unshift(this.#buffer);
    this.#buffer = Buffer.alloc(0);
  }

  #wait(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiter = () => (this.#failure ? reject(this.#failure) : resolve());
    });
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#wake();
  }
}
