import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Duplex, type Readable, type Writable } from 'node:stream';
import type { RequestBuilder } from '@k/rest';
import type { WebSocketClose } from '@k/rest/websocket';
import { PortForwardError } from '../errors.js';
import { BoundedText, MAX_QUOTED_BYTES } from './bounded-text.js';
import { ChannelMux } from './channel-mux.js';
import { keepAliveOf, type KeepAliveOptions } from './keep-alive.js';

/**
 * The port-forward channel protocol the kubelet serves over WebSockets (the API server proxies
 * it as it is): a data and an error channel per port, each starting with the port number.
 */
export const PORT_FORWARD_PROTOCOL = 'v4.channel.k8s.io';

const DATA = 0;
const ERROR = 1;

/** PortForwardStreamOptions tune `pods(ns).portForwardStream()` (and its keep-alive). */
export interface PortForwardStreamOptions extends KeepAliveOptions {
  /** signal closes the stream (destroyed with the reason). */
  signal?: AbortSignal | undefined;
}

/** PortMapping maps a local port (0: any free one) to a pod's port. */
export interface PortMapping {
  local?: number | undefined;
  remote: number;
}

/** PortForwardOptions tune `pods(ns).portForward()`; the keep-alive is each connection's. */
export interface PortForwardOptions extends KeepAliveOptions {
  /** address is where the local listeners bind (default `127.0.0.1`, as kubectl). */
  address?: string | undefined;
  /**
   * onError receives the failure of one forwarded connection (a `PortForwardError`, or the
   * server's `ApiError` when the upgrade was refused); the connection is closed, the listener
   * goes on. Default: ignored.
   */
  onError?: ((error: Error) => void) | undefined;
  /** signal closes the forwarder. */
  signal?: AbortSignal | undefined;
}

/** ForwardedPort is one listening port of a {@link PortForwarder}. */
export interface ForwardedPort {
  /** local is the port listening on `address`. */
  local: number;
  remote: number;
}

/**
 * PortForwarder is `kubectl port-forward` in a program: local listeners whose every connection
 * is tunnelled to the pod's port over its own WebSocket. Close it to stop listening and end the
 * connections.
 */
export interface PortForwarder {
  readonly address: string;
  readonly ports: readonly ForwardedPort[];
  close(): Promise<void>;
}

/**
 * PortForwardStream is one TCP connection to a pod's port, as a `Duplex`: what is written goes to
 * the port, what the port sends is read. It ends when the pod side closes; an error the server
 * writes on the port's error stream (nothing listens, no forward is configured) destroys it with
 * a `PortForwardError`. Back-pressure goes both ways. Ending the writable side does not
 * half-close the remote connection (the WebSocket protocol has no way to): destroy the stream
 * to close it.
 */
export class PortForwardStream extends Duplex {
  /** port is the pod's port. */
  readonly port: number;
  readonly #mux: ChannelMux;
  readonly #data: Readable;
  readonly #input: Writable;

  constructor(mux: ChannelMux, port: number, signal: AbortSignal | undefined) {
    super({ allowHalfOpen: true });
    this.port = port;
    this.#mux = mux;
    this.#data = mux.readable(DATA, skipPortPrefix());
    this.#input = mux.writable(DATA, false);
    const skip = skipPortPrefix();
    // The error stream is the server's text: its start is kept, bounded, for the error.
    const errorText = new BoundedText(MAX_QUOTED_BYTES, 'head');
    let failed = false;
    mux.onMessage(ERROR, (payload) => {
      const text = skip(payload);
      if (text && text.length > 0) {
        failed = true;
        errorText.push(text);
      }
    });
    this.#data.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) this.#data.pause();
    });
    const dataEnded = new Promise((resolve) => this.#data.once('end', resolve));
    void mux.closed.then(async (close: WebSocketClose) => {
      if (this.destroyed) return;
      // A failure wins at once; a clean close ends the stream after the data read so far.
      if (signal?.aborted) this.destroy(signal.reason as Error);
      else if (failed) {
        this.destroy(new PortForwardError(errorText.text() || `port ${port}: an error`, port));
      } else if (close.error) {
        this.destroy(
          new PortForwardError(`port ${port}: ${close.error.message}`, port, {
            cause: close.error,
          }),
        );
      } else {
        await dataEnded;
        this.push(null);
      }
    });
  }

  override _read(): void {
    this.#data.resume();
  }

  override _write(
    chunk: Buffer,
    encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    this.#input.write(chunk, encoding, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#mux.connection.close();
    callback(error);
  }
}

/** skipPortPrefix drops the 2-byte port number that starts a channel's first message. */
function skipPortPrefix(): (payload: Buffer) => Buffer | undefined {
  let remaining = 2;
  return (payload) => {
    if (remaining === 0) return payload;
    const skipped = Math.min(remaining, payload.length);
    remaining -= skipped;
    return payload.subarray(skipped);
  };
}

/** openPortForwardStream opens `builder` (the portforward request for one port) as a stream. */
export async function openPortForwardStream(
  builder: RequestBuilder,
  port: number,
  options: PortForwardStreamOptions,
): Promise<PortForwardStream> {
  const connection = await builder.params({ ports: String(port) }).webSocket({
    protocols: [PORT_FORWARD_PROTOCOL],
    ...keepAliveOf(options),
  });
  return new PortForwardStream(new ChannelMux(connection), port, options.signal);
}

/**
 * startPortForwarder listens on each mapping's local port and tunnels every connection through
 * `open(remote)`. One stream per port is opened before it resolves, so a refusal (403, a pod
 * that does not exist) fails the call as `kubectl port-forward` fails at once; that stream
 * serves the port's first connection.
 */
export async function startPortForwarder(
  mappings: readonly PortMapping[],
  options: PortForwardOptions,
  open: (remote: number) => Promise<PortForwardStream>,
): Promise<PortForwarder> {
  const address = options.address ?? '127.0.0.1';
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const ready = new Map<number, PortForwardStream>();
  let closed = false;
  const closing: (() => void)[] = [];
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const release of closing) release();
    for (const stream of ready.values()) stream.destroy();
    for (const socket of sockets) socket.destroy();
    await Promise.all(
      servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  };
  try {
    for (const mapping of mappings) {
      if (ready.has(mapping.remote)) continue;
      const stream = await open(mapping.remote);
      // Until a connection takes it, a failure of this stream is only a reason to open another.
      stream.on('error', () => undefined);
      ready.set(mapping.remote, stream);
    }
    const ports: ForwardedPort[] = [];
    for (const mapping of mappings) {
      const server = createServer((socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        void forward(socket, mapping.remote);
      });
      servers.push(server);
      server.listen(mapping.local ?? 0, address);
      await once(server, 'listening');
      ports.push({ local: (server.address() as AddressInfo).port, remote: mapping.remote });
    }
    const signal = options.signal;
    if (signal) {
      const onAbort = (): void => void close();
      signal.addEventListener('abort', onAbort, { once: true });
      closing.push(() => signal.removeEventListener('abort', onAbort));
      if (signal.aborted) await close();
    }
    return { address, ports, close };
  } catch (error) {
    await close();
    throw error;
  }

  async function streamFor(remote: number): Promise<PortForwardStream> {
    const first = ready.get(remote);
    ready.delete(remote);
    if (first && !first.destroyed && !first.readableEnded) return first;
    first?.destroy();
    return open(remote);
  }

  async function forward(socket: Socket, remote: number): Promise<void> {
    socket.on('error', () => socket.destroy());
    let stream: PortForwardStream;
    try {
      stream = await streamFor(remote);
    } catch (error) {
      socket.destroy();
      options.onError?.(error as Error);
      return;
    }
    if (closed || socket.destroyed) {
      stream.destroy();
      return;
    }
    stream.on('error', (error: Error) => {
      socket.destroy();
      options.onError?.(error);
    });
    socket.pipe(stream);
    stream.pipe(socket);
    socket.once('close', () => stream.destroy());
  }
}
