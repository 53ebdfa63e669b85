import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  inferClientset,
  type Clientset,
  type InferClientsetOptions,
  type KubernetesObject,
} from '@k/clientset';
import { linkSignals } from '@k/rest';
import { Controller, type WatchedInformer } from '../controller/controller.js';
import { ControllerBuilder } from '../controller/controller-builder.js';
import { EventRecorder, type EventRecorderOptions } from '../events/event-recorder.js';
import { RuntimeError, isLeadershipLost } from '../errors.js';
import type { Informer, InformerOptions } from '../informer/informer.js';
import { InformerFactory } from '../informer/informer-factory.js';
import { informerGauges } from '../informer/informer-metrics.js';
import type { ListerWatcher } from '../informer/reflector.js';
import { withDefaults } from '../internal/with-defaults.js';
import {
  LeaderElector,
  type LeaderElectorOptions,
  type LeaseClient,
} from '../leader-election/leader-elector.js';
import { jsonLogger, type Logger } from '../logger.js';
import { NOOP_METRICS, isScrapable, type MetricsSink } from '../metrics/metrics-sink.js';
import { restClientInstrumentation } from '../metrics/rest-client-metrics.js';
import { WebhookServer, type WebhookServerOptions } from '../webhook/webhook-server.js';
import type { WorkqueueRateLimiter } from '../workqueue/rate-limiters.js';
import { HealthChecks, type HealthCheck } from './health-checks.js';
import { ManagerServer, type ServerAddress, type ServerKind } from './manager-server.js';
import { whenAborted, type Runnable, type RunnableContext } from './runnable.js';

/** Closeable is something a Manager closes at shutdown (see `closeOnShutdown`). */
export interface Closeable {
  close(): void | Promise<void>;
}

/** ManagerLeaderElectionOptions turn on leader election: the Lease client, its name, durations. */
export interface ManagerLeaderElectionOptions extends Omit<
  LeaderElectorOptions,
  'identity' | 'onStartedLeading' | 'onStoppedLeading' | 'releaseOnCancel' | 'logger'
> {
  /**
   * namespace holds the Lease, written with the Manager's clientset (default: the clientset's
   * namespace — in a Pod, its own); or give `leases`, the Lease client of the lock's namespace
   * (`cs.coordinationV1.leases('ns')`).
   */
  namespace?: string | undefined;
  leases?: LeaseClient | undefined;
  /** identity of this process in the Lease (default: host name and a random suffix). */
  identity?: string | undefined;
}

/** ListenOptions say where one of a Manager's servers listens. */
export interface ListenOptions {
  /** port to listen on (0 picks a free one). */
  port?: number | undefined;
  /** host to listen on (`'0.0.0.0'` or `'::'`: every interface). */
  host?: string | undefined;
}

/** ManagerOptions configure a {@link Manager}; everything is optional. */
export interface ManagerOptions {
  /**
   * clientset is the Manager's: its controllers' events and leader election use it, and the
   * Manager closes it last at shutdown (after every recorder flushed). `Manager.create` makes one
   * with `inferClientset` when it is not given.
   */
  clientset?: Clientset | undefined;
  /**
   * probes is where `/healthz`, `/livez` and `/readyz` listen (default port 8081 on every
   * interface, as the kubelet probes the Pod's IP; `false`: nowhere). A failing check's reason is
   * logged, not served.
   */
  probes?: ListenOptions | false | undefined;
  /**
   * metricsServer is where `/metrics` listens (default port 8080 on 127.0.0.1 only: unauthenticated
   * metrics name namespaces and resources, so serve them beyond the Pod on purpose, with
   * `host: '0.0.0.0'` for a Prometheus that scrapes Pods; `false`: nowhere).
   */
  metricsServer?: ListenOptions | false | undefined;
  /**
   * onListening is told each server's address once it listens (see also `addresses`), the
   * webhook server's (`serves: 'webhook'`) included.
   */
  onListening?: ((address: ServerAddress) => void) | undefined;
  /** leaderElection, when set, runs the controllers only while this process holds the Lease. */
  leaderElection?: ManagerLeaderElectionOptions | undefined;
  /** gracefulShutdownTimeoutMs bounds the wait for runnables to finish at shutdown (default 30 s). */
  gracefulShutdownTimeoutMs?: number | undefined;
  /**
   * logger for the Manager, its informers and controllers (default: {@link jsonLogger}, JSON lines
   * at info on stderr; {@link SILENT_LOGGER} for none).
   */
  logger?: Logger | undefined;
  /**
   * metrics for the informers (of `informers`), controllers (of `controller()`) and their
   * workqueues, leader election and `informer_synced`/`informer_ready`/`informer_objects` of every
   * informer, served at `/metrics` (`@k/runtime/prometheus`'s `PrometheusMetrics`). Without a sink
   * that renders, there is no `/metrics` server, and the log says so at start (a warning when
   * `metricsServer` was set); `Manager.create` makes a `PrometheusMetrics` when prom-client is
   * installed.
   */
  metrics?: MetricsSink | undefined;
  /** rateLimiter makes the workqueue rate limiter of each controller of `controller()` (default: client-go's). */
  rateLimiter?: (() => WorkqueueRateLimiter<string>) | undefined;
  /**
   * informerDefaults are the options of every informer of `informers` (a call's own options win;
   * one passed as `undefined` keeps the default, as here `logger: undefined` keeps the Manager's).
   */
  informerDefaults?: InformerOptions<KubernetesObject> | undefined;
}

/** ManagerRunOptions configure `run`. */
export interface ManagerRunOptions {
  /** signals that stop the Manager gracefully (default SIGTERM and SIGINT); a second one kills at once. */
  signals?: readonly NodeJS.Signals[] | undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Manager runs the informers, controllers and other runnables of one process together
 * (controller-runtime's manager), with an HTTP server for the probes (`/healthz`, `/livez`,
 * `/readyz`; every interface, port 8081) and one for `/metrics` (loopback, port 8080).
 *
 * - `informerFor(client)` gives shared informers (its `informers` factory); `controller(name)`
 *   gives a builder whose `complete(reconcile)` adds the controller; `add(runnable)` adds anything.
 * - `start(signal)` listens, starts every informer (standby replicas keep a warm cache), then —
 *   at once, or once this process leads when `leaderElection` is set — the controllers. It
 *   resolves after a clean stop and rejects with the first failure (a runnable that rejected,
 *   `ERR_RUNTIME_LEADERSHIP_LOST` when leadership ended while running, `ERR_RUNTIME_LISTEN`,
 *   `ERR_RUNTIME_SHUTDOWN_TIMEOUT`).
 * - Shutdown, in order: `/readyz` fails, the runnables drain (up to `gracefulShutdownTimeoutMs`),
 *   leader election stops and the Lease is released (only when they drained in time, so two
 *   leaders never overlap), the informers stop, the servers close, the closeables close.
 *   When leadership is lost instead (a renewal failed: another replica may lead already), the
 *   controllers stop at once without draining (their queues dropped, running reconciles'
 *   signals aborted), nothing waits for the runnables, and `start` rejects with
 *   `ERR_RUNTIME_LEADERSHIP_LOST` so the process exits and starts clean.
 * - `/healthz` (also `/livez`): `ping`, `leaderElection` healthy (client-go's check) and your
 *   `addHealthCheck`s. `/readyz`: `informers` synced and not failing (their `health()`), not
 *   `shutdown`, and your `addReadyCheck`s. As on kube-apiserver, `/readyz/<name>` runs one check
 *   (404 for an unknown name), `?exclude=<name>` skips one and `?verbose` lists them; a failing
 *   check answers `reason withheld` and the reason goes to the log.
 * - `run()` is `start` for a program's main: SIGTERM or SIGINT stops it gracefully, a second
 *   signal kills the process, and `process.exitCode` is 0 after a clean stop, 1 after a failure.
 */
export class Manager {
  /** informers is the Manager's shared informer factory (started with the Manager). */
  readonly informers: InformerFactory;
  readonly logger: Logger;
  readonly metrics: MetricsSink;
  /** elector is the leader elector when `leaderElection` is set. */
  readonly elector: LeaderElector | undefined;
  readonly #options: ManagerOptions;
  readonly #runnables: Runnable[] = [];
  readonly #controllers: Controller[] = [];
  readonly #closeables: Closeable[] = [];
  readonly #recorders: EventRecorder[] = [];
  readonly #clientset: Clientset | undefined;
  readonly #health = new HealthChecks();
  readonly #ready = new HealthChecks();
  readonly #servers: {
    server: ManagerServer;
    listen: { port: number; host?: string | undefined };
  }[] = [];
  #webhookServer: WebhookServer | undefined;
  #started = false;
  #shuttingDown = false;
  #onStartedLeading: ((leadership: AbortSignal) => void) | undefined;

  constructor(options: ManagerOptions = {}) {
    this.#options = options;
    this.#clientset = options.clientset;
    this.logger = options.logger ?? jsonLogger();
    this.metrics = options.metrics ?? NOOP_METRICS;
    this.informers = new InformerFactory(
      withDefaults<InformerOptions<KubernetesObject>>(
        { logger: this.logger, metrics: this.metrics },
        options.informerDefaults ?? {},
      ),
    );
    informerGauges(this.metrics, () => this.#allInformers());
    const probes = listenOptions('probes', options.probes, DEFAULT_PROBES);
    if (probes) {
      this.#servers.push({
        server: new ManagerServer(
          { serves: 'probes', health: this.#health, ready: this.#ready },
          this.logger,
        ),
        listen: probes,
      });
    }
    const metricsServer = isScrapable(this.metrics)
      ? listenOptions('metricsServer', options.metricsServer, DEFAULT_METRICS)
      : undefined;
    if (metricsServer) {
      this.#servers.push({
        server: new ManagerServer({ serves: 'metrics', metrics: this.metrics }, this.logger),
        listen: metricsServer,
      });
    }
    this.#health.add('ping', () => {});
    this.#ready.add('shutdown', () => {
      if (this.#shuttingDown) throw new Error('shutting down');
    });
    this.#ready.add('informers', () => this.#checkInformers());
    if (options.leaderElection) {
      const { leases, namespace, ...election } = options.leaderElection;
      if (leases !== undefined && namespace !== undefined) {
        throw new RuntimeError(
          'ERR_RUNTIME_CONFIGURATION',
          'leaderElection takes namespace (the Lease is written with the manager clientset) or leases, not both',
        );
      }
      const elector = new LeaderElector(
        leases ??
          this.clientset.coordinationV1.leases(namespace ?? this.clientset.defaultNamespace),
        {
          ...election,
          identity: election.identity ?? `${hostname()}_${randomUUID()}`,
          releaseOnCancel: false,
          logger: this.logger,
          onStartedLeading: (leadership) => this.#onStartedLeading?.(leadership),
        },
      );
      this.elector = elector;
      this.#health.add('leaderElection', () => {
        if (!elector.healthy()) throw new Error('the leader has not renewed its lease in time');
      });
    }
  }

  /** addresses are where the servers listen, once they do: `probes`, `metrics` and `webhook`. */
  get addresses(): Partial<Record<ServerKind, ServerAddress>> {
    const addresses: Partial<Record<ServerKind, ServerAddress>> = {};
    for (const { server } of this.#servers) {
      const address = server.address;
      if (address) addresses[address.serves] = address;
    }
    const webhook = this.#webhookServer?.address;
    if (webhook) addresses.webhook = webhook;
    return addresses;
  }

  /**
   * webhookServer makes the Manager's {@link WebhookServer} (once; before the Manager starts),
   * with the Manager's logger and metrics unless `options` say otherwise. It runs on every
   * replica (no leader election), adds the ready check `webhook` (listening with a certificate
   * loaded), tells `onListening` its address, and stops with the Manager: `/readyz` fails first,
   * then the calls in flight finish within the graceful shutdown timeout.
   */
  webhookServer(options: WebhookServerOptions = {}): WebhookServer {
    if (this.#webhookServer) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        'this manager already has a webhook server: call webhookServer() once and keep it',
      );
    }
    if (this.#started) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        'make the webhook server before the manager starts',
      );
    }
    const own = options.onListening;
    const server = new WebhookServer(
      withDefaults<WebhookServerOptions>(
        { logger: this.logger, metrics: this.metrics },
        {
          ...options,
          onListening: (address) => {
            own?.(address);
            this.#options.onListening?.(address);
          },
        },
      ),
    );
    this.addReadyCheck('webhook', () => server.ready());
    this.add(server);
    this.#webhookServer = server;
    return server;
  }

  /** informerFor is `informers.informerFor`: the shared informer of a typed or dynamic client. */
  informerFor<T extends KubernetesObject>(
    source: ListerWatcher<T>,
    options: InformerOptions<T> = {},
  ): Informer<T> {
    return this.informers.informerFor(source, options);
  }

  /**
   * create makes a Manager with a clientset of its own when `options.clientset` is not given:
   * `inferClientset(clientsetOptions)` (kubeconfig, else in-cluster, like kubectl) paced at
   * controller-runtime's 20 requests/s with bursts of 30 unless `clientsetOptions.throttle` says
   * otherwise (client-go's default of 5/10 makes an operator slow). With prom-client installed and
   * no `metrics` given, it serves `PrometheusMetrics` at `/metrics`, the clientset's requests
   * included (`rest_client_requests_total`, …). The Manager owns the clientset and closes it last.
   */
  static async create(options: CreateManagerOptions = {}): Promise<Manager> {
    const { clientsetOptions = {}, ...managerOptions } = options;
    const metrics = managerOptions.metrics ?? (await prometheusIfInstalled());
    const logger = managerOptions.logger ?? jsonLogger();
    const clientset =
      managerOptions.clientset ??
      (await inferClientset(instrumented(clientsetOptions, { metrics, logger })));
    return new Manager({
      ...managerOptions,
      clientset,
      logger,
      ...(metrics ? { metrics } : {}),
    });
  }

  /** clientset is the Manager's own (given, or made by `create`); closed last at shutdown. */
  get clientset(): Clientset {
    if (!this.#clientset) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        'this manager has no clientset: pass one in its options, or make it with Manager.create()',
      );
    }
    return this.#clientset;
  }

  /**
   * eventRecorder makes an {@link EventRecorder} on the Manager's clientset (with the Manager's
   * logger unless `options.logger` is set; `undefined` is unset) that the Manager flushes and
   * closes at shutdown, before it closes the clientset.
   */
  eventRecorder(
    options: Omit<EventRecorderOptions, 'logger'> & { logger?: Logger | undefined },
  ): EventRecorder {
    const recorder = new EventRecorder(
      this.clientset,
      withDefaults<EventRecorderOptions>({ logger: this.logger }, options),
    );
    this.#recorders.push(recorder);
    return recorder;
  }

  /**
   * controller starts a {@link ControllerBuilder} whose `complete(reconcile)` adds the controller
   * to this Manager; its sources share the Manager's informers, and it has the Manager's logger,
   * metrics and `rateLimiter` unless `withOptions` says otherwise.
   */
  controller(name: string): ControllerBuilder {
    const rateLimiter = this.#options.rateLimiter?.();
    return new ControllerBuilder(name, {
      informers: this.informers,
      onComplete: (controller) => this.add(controller),
    }).withOptions({
      logger: this.logger,
      metrics: this.metrics,
      ...(rateLimiter ? { rateLimiter } : {}),
    });
  }

  /** add adds a runnable; a {@link Controller}'s informers become part of the Manager's cache. */
  add(runnable: Runnable | Controller): this {
    if (this.#started) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        'add runnables before the manager starts',
      );
    }
    if (runnable instanceof Controller) {
      if (this.#controllers.some((controller) => controller.name === runnable.name)) {
        throw new RuntimeError(
          'ERR_RUNTIME_CONFIGURATION',
          `a controller named ${runnable.name} was already added`,
        );
      }
      this.#controllers.push(runnable);
    }
    this.#runnables.push(runnable);
    return this;
  }

  /** addHealthCheck adds a liveness check to `/healthz` (a name is taken once). */
  addHealthCheck(name: string, check: HealthCheck): this {
    this.#addCheck(this.#health, name, check);
    return this;
  }

  /** addReadyCheck adds a readiness check to `/readyz` (a name is taken once). */
  addReadyCheck(name: string, check: HealthCheck): this {
    this.#addCheck(this.#ready, name, check);
    return this;
  }

  #addCheck(checks: HealthChecks, name: string, check: HealthCheck): void {
    if (!checks.add(name, check)) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `a check named ${name} was already added`,
      );
    }
  }

  /**
   * closeOnShutdown closes `closeable` at shutdown, after the runnables, informers and servers
   * stopped. Closeables close one by one in reverse order of adding (the last added first), then
   * the Manager's event recorders flush, then its clientset closes.
   */
  closeOnShutdown(closeable: Closeable): this {
    this.#closeables.push(closeable);
    return this;
  }

  /** isLeader is true while this process leads (always, without leader election, once started). */
  get isLeader(): boolean {
    return this.elector ? this.elector.isLeader : this.#started && !this.#shuttingDown;
  }

  #allInformers(): WatchedInformer[] {
    const informers = new Set<WatchedInformer>(this.informers.informers);
    for (const controller of this.#controllers) {
      for (const informer of controller.informers) informers.add(informer);
    }
    return [...informers];
  }

  #checkInformers(): void {
    const notReady = this.#allInformers()
      .map((informer) => informer.health())
      .filter((health) => !health.ready)
      .map((health) => {
        const why = health.lastError ? health.lastError.message : health.state;
        return `${health.resource} ${health.synced ? 'failing' : 'not synced'} (${why})`;
      });
    if (notReady.length > 0) throw new Error(notReady.join('; '));
  }

  /**
   * run is `start` for a program's main (see the class): it stops gracefully on SIGTERM or SIGINT,
   * sets `process.exitCode` and rejects with the failure, if any.
   */
  async run(options: ManagerRunOptions = {}): Promise<void> {
    const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
    const stop = new AbortController();
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stop.signal.aborted) {
        // A second signal: give the default behaviour back and let it kill the process.
        removeHandlers();
        process.kill(process.pid, signal);
        return;
      }
      this.logger.info('signal received; shutting down', { signal });
      stop.abort(new Error(`received ${signal}`));
    };
    const removeHandlers = (): void => {
      for (const signal of signals) process.off(signal, onSignal);
    };
    for (const signal of signals) process.on(signal, onSignal);
    try {
      await this.start(stop.signal);
      process.exitCode ??= 0;
    } catch (error) {
      process.exitCode = 1;
      throw error;
    } finally {
      removeHandlers();
    }
  }

  /** start runs everything until `signal` aborts or something fails (see the class). */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) {
      throw new RuntimeError('ERR_RUNTIME_CONFIGURATION', 'the manager was already started');
    }
    this.#started = true;
    // A running Manager is pending work, whatever it runs: it keeps `node` alive until stopped.
    const keepAlive = setInterval(() => {}, 2 ** 30);
    try {
      await this.#run(signal);
    } finally {
      clearInterval(keepAlive);
    }
  }

  async #run(signal: AbortSignal): Promise<void> {
    let failure: Error | undefined;
    const fail = (error: unknown): void => {
      failure ??= error instanceof Error ? error : new Error(String(error));
      failed.abort();
    };
    const failed = new AbortController();
    const stopRunnables = new AbortController();
    const stopElection = new AbortController();
    const stopCache = new AbortController();
    // lost aborts when leadership is lost involuntarily: nothing waits for the runnables then.
    const lost = new AbortController();
    const running: Promise<void>[] = [];
    const runAll = (
      runnables: Runnable[],
      runSignal: AbortSignal,
      context: RunnableContext = {},
    ): void => {
      for (const runnable of runnables) {
        running.push(
          Promise.resolve()
            .then(() => runnable.start(runSignal, context))
            .catch((error: unknown) => {
              this.logger.error('runnable failed', { error: messageOf(error) });
              fail(error);
            }),
        );
      }
    };

    try {
      await this.#listen();
    } catch (error) {
      await this.#close();
      throw error;
    }
    this.informers.start(stopCache.signal);
    for (const informer of this.#allInformers()) informer.start(stopCache.signal);
    const withoutElection = this.#runnables.filter(
      (runnable) => !needsLeader(runnable, this.elector),
    );
    const withElection = this.#runnables.filter((runnable) => needsLeader(runnable, this.elector));
    runAll(withoutElection, stopRunnables.signal);
    let election: Promise<void> | undefined;
    const elector = this.elector;
    if (elector) {
      election = this.#elect(
        elector,
        withElection,
        runAll,
        stopRunnables.signal,
        stopElection.signal,
        (error) => {
          fail(error);
          lost.abort(error);
        },
      );
    } else {
      runAll(withElection, stopRunnables.signal);
    }

    await Promise.race([whenAborted(signal), whenAborted(failed.signal)]);
    this.#shuttingDown = true;
    this.logger.info('manager stopping', failure ? { error: messageOf(failure) } : {});
    // After an involuntary loss another replica may lead already: nothing drains (the
    // controllers stop at once, also when the loss comes while they drain after a signal), and
    // the process is to exit and start clean (controller-runtime).
    stopRunnables.abort(isLeadershipLost(failure) ? failure : undefined);
    const drained = await this.#settleWithin(Promise.all(running), lost.signal);
    if (!drained && !lost.signal.aborted) {
      fail(
        new RuntimeError(
          'ERR_RUNTIME_SHUTDOWN_TIMEOUT',
          `runnables did not stop within ${this.#gracefulShutdownTimeoutMs} ms`,
        ),
      );
    }
    stopElection.abort();
    await election;
    // Released only once the controllers stopped, so the next leader never overlaps with them.
    if (drained && elector && failure === undefined) await elector.release();
    stopCache.abort();
    await Promise.all(this.#allInformers().map((informer) => informer.stop()));
    await this.#close();
    this.logger.info('manager stopped');
    if (failure !== undefined) throw failure;
  }

  get #gracefulShutdownTimeoutMs(): number {
    return this.#options.gracefulShutdownTimeoutMs ?? 30_000;
  }

  async #listen(): Promise<void> {
    for (const { server, listen } of this.#servers) {
      const address = await server.listen(listen.port, listen.host);
      this.logger.info(`serving ${address.serves}`, { url: address.url });
      this.#options.onListening?.(address);
    }
    if (this.#options.metricsServer !== false && !isScrapable(this.metrics)) {
      this.logger[this.#options.metricsServer ? 'warn' : 'info'](
        'not serving /metrics: no metrics sink that renders (install prom-client and use Manager.create, or pass metrics: new PrometheusMetrics() from @k/runtime/prometheus)',
      );
    }
  }

  #elect(
    elector: LeaderElector,
    runnables: Runnable[],
    runAll: (runnables: Runnable[], signal: AbortSignal, context: RunnableContext) => void,
    stopRunnables: AbortSignal,
    stopElection: AbortSignal,
    loseLeadership: (error: unknown) => void,
  ): Promise<void> {
    const leading = this.metrics.gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'],
    });
    const labels = { name: elector.name };
    leading.set(labels, 0);
    let leadership: AbortSignal | undefined;
    let whileLeading: { dispose(): void } | undefined;
    this.#onStartedLeading = (signal) => {
      leadership = signal;
      leading.set(labels, 1);
      this.logger.info('leading; starting controllers', { lease: elector.name });
      // Aborts with the leadership's reason when it is lost, so controllers stop at once; a loss
      // after the stop signal, while they drain, reaches them through `leadership`.
      const linked = linkSignals([signal, stopRunnables]);
      whileLeading = linked;
      runAll(runnables, linked.signal, { leadership: signal });
    };
    return elector.run(stopElection).then(() => {
      whileLeading?.dispose();
      leading.set(labels, 0);
      if (leadership && !stopElection.aborted) {
        loseLeadership(
          isLeadershipLost(leadership.reason)
            ? leadership.reason
            : new RuntimeError(
                'ERR_RUNTIME_LEADERSHIP_LOST',
                `leadership of lease ${elector.name} was lost`,
              ),
        );
      }
    });
  }

  /** #settleWithin is true when `work` settles within the grace period, false at its end or when `abandon` aborts. */
  async #settleWithin(work: Promise<unknown>, abandon: AbortSignal): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#gracefulShutdownTimeoutMs);
    });
    try {
      return await Promise.race([
        work.then(() => true as const),
        timedOut,
        whenAborted(abandon).then(() => false as const),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #close(): Promise<void> {
    await Promise.all(this.#servers.map(({ server }) => server.close()));
    const closing: Closeable[] = [
      ...[...this.#closeables].reverse(),
      ...this.#recorders,
      ...(this.#clientset ? [this.#clientset] : []),
    ];
    for (const closeable of closing) {
      try {
        await closeable.close();
      } catch (error) {
        this.logger.warn('closing failed at shutdown', { error: messageOf(error) });
      }
    }
  }
}

/** OPERATOR_THROTTLE is controller-runtime's pace for an operator's client (client-go's default is 5/10). */
export const OPERATOR_THROTTLE = { qps: 20, burst: 30 } as const;

/** CreateManagerOptions configure `Manager.create`: the Manager's options and, without `clientset`, how to make one. */
export interface CreateManagerOptions extends ManagerOptions {
  /** clientsetOptions are `inferClientset`'s (kubeconfig, context, throttle: default 20 qps, burst 30, …). */
  clientsetOptions?: InferClientsetOptions | undefined;
}

/**
 * prometheusIfInstalled is a `PrometheusMetrics` when the optional peer prom-client is installed;
 * any other failure to load the adapter is an error, not a quiet absence of `/metrics`.
 */
async function prometheusIfInstalled(): Promise<MetricsSink | undefined> {
  try {
    const { PrometheusMetrics } = await import('../prometheus.js');
    return new PrometheusMetrics();
  } catch (error) {
    if (isPromClientMissing(error)) return undefined;
    throw error;
  }
}

/** isPromClientMissing: `error` says the module prom-client could not be found (ESM or CommonJS). */
function isPromClientMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes("'prom-client'")
  );
}

/**
 * instrumented is `options` paced for an operator (unless they say otherwise) with the clientset's
 * request metrics and throttle waits recorded and logged, beside the caller's own interceptors
 * and `onThrottle`.
 */
function instrumented(
  options: InferClientsetOptions,
  observers: { metrics: MetricsSink | undefined; logger: Logger },
): InferClientsetOptions {
  const instrumentation = restClientInstrumentation(observers);
  const own = options.onThrottle;
  return {
    ...withDefaults<InferClientsetOptions>({ throttle: OPERATOR_THROTTLE }, options),
    transport: {
      ...options.transport,
      interceptors: [
        ...(options.transport?.interceptors ?? []),
        ...instrumentation.transport.interceptors,
      ],
    },
    onThrottle: own
      ? (event) => {
          instrumentation.onThrottle(event);
          own(event);
        }
      : instrumentation.onThrottle,
  };
}

const DEFAULT_PROBES = { port: 8081, host: undefined };
const DEFAULT_METRICS = { port: 8080, host: '127.0.0.1' };

/** listenOptions checks and completes one server's options (false: no server). */
function listenOptions(
  name: string,
  given: ListenOptions | false | undefined,
  defaults: { port: number; host: string | undefined },
): { port: number; host?: string | undefined } | undefined {
  if (given === false) return undefined;
  const port = given?.port ?? defaults.port;
  if (!(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new RuntimeError(
      'ERR_RUNTIME_INVALID_ARGUMENT',
      `manager ${name}.port ${String(port)} is not a port`,
    );
  }
  return { port, host: given?.host ?? defaults.host };
}

function needsLeader(runnable: Runnable, elector: LeaderElector | undefined): boolean {
  return elector !== undefined && runnable.needLeaderElection !== false;
}
