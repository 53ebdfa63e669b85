import { connect, createServer, type Server, type Socket } from 'node:net';
import type { ControlPlaneConnection } from './connection.js';
import { planeKubeconfig, writeKubeconfig, type KubeconfigOptions } from './kubeconfig.js';

/** FaultProxyMode is what the proxy does with traffic right now. */
export type FaultProxyMode = 'pass' | 'stall' | 'refuse';

interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
  /** Chunks held back while stalled, per direction. */
  readonly held: { readonly toUpstream: Buffer[]; readonly toClient: Buffer[] };
}

/**
 * FaultProxy is a TCP proxy on 127.0.0.1 in front of kube-apiserver (TLS passes through, so the
 * serving certificate, which names 127.0.0.1, still verifies). On command it cuts every open
 * connection, stalls them (accepts, then forwards nothing either way), adds latency to every
 * chunk, or refuses new connections (its port is closed); `heal()` undoes stall, latency and refuse.
 * Its listener does not keep the process alive; open connections do.
 */
export class FaultProxy {
  /** `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** A kubeconfig like the control plane's (same users and contexts) whose server is the proxy. */
  readonly kubeconfigPath: string;
  readonly port: number;
  #mode: FaultProxyMode = 'pass';
  #latencyMs = 0;
  #listener: Server;
  readonly #pairs = new Set<Pair>();
  readonly #targetPort: number;
  #closed = false;

  private constructor(listener: Server, port: number, targetPort: number, kubeconfigPath: string) {
    this.#listener = listener;
    this.port = port;
    this.server = `https://127.0.0.1:${port}`;
    this.#targetPort = targetPort;
    this.kubeconfigPath = kubeconfigPath;
  }

  /**
   * FaultProxy.start listens on a free loopback port, forwards to 127.0.0.1:`targetPort` and writes
   * `kubeconfigPath` from `kubeconfig` with the proxy as server.
   */
  static async start(
    targetPort: number,
    kubeconfigPath: string,
    kubeconfig: KubeconfigOptions,
  ): Promise<FaultProxy> {
    const listener = createServer();
    const port = await listen(listener, 0);
    const proxy = new FaultProxy(listener, port, targetPort, kubeconfigPath);
    listener.on('connection', (client: Socket) => proxy.accept(client));
    await writeKubeconfig(kubeconfigPath, { ...kubeconfig, server: proxy.server });
    return proxy;
  }

  /**
   * FaultProxy.inFrontOf starts a proxy in front of the kube-apiserver of a running control plane
   * (the run's shared one, say) and writes `kubeconfigPath` with its users and contexts, so a
   * test gets faults without starting a plane of its own. The caller closes it.
   */
  static inFrontOf(
    connection: ControlPlaneConnection,
    kubeconfigPath: string,
  ): Promise<FaultProxy> {
    const port = Number(new URL(connection.server).port);
    return FaultProxy.start(port, kubeconfigPath, planeKubeconfig(connection));
  }

  /** mode is `pass`, `stall` or `refuse`. */
  get mode(): FaultProxyMode {
    return this.#mode;
  }

  /** connections is how many client connections are open. */
  get connections(): number {
    return this.#pairs.size;
  }

  /** cut destroys every open connection (both sides); new ones are accepted as before. */
  cut(): void {
    for (const pair of this.#pairs) this.#drop(pair);
  }

  /** stall accepts new connections but forwards nothing, and freezes open ones, until `heal()`. */
  async stall(): Promise<void> {
    if (this.#mode === 'refuse') await this.#relisten();
    this.#mode = 'stall';
  }

  /** latency delays every chunk, either way, by `ms` (order kept); 0 turns it off. */
  latency(ms: number): void {
    this.#latencyMs = Math.max(0, ms);
  }

  /**
   * refuse closes the listening port: new connections are refused; open ones go on. Resolves once
   * the port is closed, not when the open connections end.
   */
  refuse(): Promise<void> {
    if (this.#mode !== 'refuse') {
      this.#mode = 'refuse';
      // close() closes the port at once; its callback would wait for every open connection.
      this.#listener.close();
    }
    return Promise.resolve();
  }

  /** heal ends stall, latency and refuse; held traffic of stalled connections flows on. */
  async heal(): Promise<void> {
    const wasRefusing = this.#mode === 'refuse';
    this.#mode = 'pass';
    this.#latencyMs = 0;
    if (wasRefusing) await this.#relisten();
    for (const pair of this.#pairs) {
      if (!pair.upstream) this.#connectUpstream(pair);
      else this.#flush(pair);
    }
  }

  /** close stops listening and cuts every connection; idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.cut();
    if (this.#listener.listening)
      await new Promise<void>((resolve) => this.#listener.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const pair: Pair = { client, upstream: undefined, held: { toUpstream: [], toClient: [] } };
    this.#pairs.add(pair);
    client.on('error', () => this.#drop(pair));
    client.on('close', () => this.#later(() => this.#drop(pair)));
    client.on('data', (chunk: Buffer) => this.#forward(pair, chunk, 'toUpstream'));
    if (this.#mode !== 'stall') this.#connectUpstream(pair);
  }

  #connectUpstream(pair: Pair): void {
    const upstream = connect({ host: '127.0.0.1', port: this.#targetPort });
    pair.upstream = upstream;
    upstream.on('error', () => this.#drop(pair));
    // After the chunks still on their way: a response must arrive before its connection's end.
    upstream.on('close', () => this.#later(() => this.#drop(pair)));
    upstream.on('data', (chunk: Buffer) => this.#forward(pair, chunk, 'toClient'));
    upstream.on('connect', () => this.#flush(pair));
  }

  #forward(pair: Pair, chunk: Buffer, direction: 'toUpstream' | 'toClient'): void {
    const target = direction === 'toUpstream' ? pair.upstream : pair.client;
    if (this.#mode === 'stall' || !target || target.connecting) {
      pair.held[direction].push(chunk);
      return;
    }
    this.#later(() => target.write(chunk));
  }

  /** #later runs `action` after the current latency (timers of equal delay keep their order). */
  #later(action: () => void): void {
    if (this.#latencyMs > 0) setTimeout(action, this.#latencyMs);
    else action();
  }

  #flush(pair: Pair): void {
    if (this.#mode === 'stall') return;
    for (const direction of ['toUpstream', 'toClient'] as const) {
      const chunks = pair.held[direction].splice(0);
      for (const chunk of chunks) this.#forward(pair, chunk, direction);
    }
  }

  #drop(pair: Pair): void {
    if (!this.#pairs.delete(pair)) return;
    pair.client.destroy();
    pair.upstream?.destroy();
  }

  async #relisten(): Promise<void> {
    const listener = createServer((client) => this.accept(client));
    await listen(listener, this.port);
    this.#listener = listener;
  }
}

function listen(listener: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    listener.once('error', reject);
    listener.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      listener.unref();
      const address = listener.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
