import type { Dispatcher } from 'undici';

/** Closable is an open watch or response stream. */
export interface Closable {
  close(): void;
}

const OPEN_STREAMS = new WeakMap<Dispatcher, Set<Closable>>();

/**
 * OpenStreams keeps the watches and streams open on one dispatcher — shared by every RestClient
 * sending through it, like the connections — so their owner can end them before closing the
 * transport: a watch or a followed log never finishes by itself, and a graceful close would
 * otherwise wait for the server to end it. Entries leave when their stream closes.
 */
export class OpenStreams {
  readonly #open: Set<Closable>;

  constructor(dispatcher: Dispatcher) {
    let open = OPEN_STREAMS.get(dispatcher);
    if (!open) {
      open = new Set();
      OPEN_STREAMS.set(dispatcher, open);
    }
    this.#open = open;
  }

  /** add records `stream` as open; the returned function forgets it (call it on close). */
  add(stream: Closable): () => void {
    this.#open.add(stream);
    return () => this.#open.delete(stream);
  }

  /** size is how many streams are open on the dispatcher. */
  get size(): number {
    return this.#open.size;
  }

  /** closeAll closes every open stream (watch loops end normally, streams end quietly). */
  closeAll(): void {
    for (const stream of [...this.#open]) stream.close();
  }
}
