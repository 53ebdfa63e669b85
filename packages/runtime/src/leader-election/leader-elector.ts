import type { GetOptions, RequestOptions } from '@k/clientset';
import type { Lease, LeaseSpec } from '@k/clientset/coordination/v1';
import { isConflict, isNotFound, linkSignals, sleep, systemClock, type Clock } from '@k/rest';
import { RuntimeError } from '../errors.js';
import { SILENT_LOGGER, type Logger } from '../logger.js';

/**
 * LeaseClient is the lock a {@link LeaderElector} competes for: the typed client of
 * `coordination.k8s.io/v1` Leases in one namespace (`cs.coordinationV1.leases('ns')`), or your own.
 */
export interface LeaseClient {
  get(name: string, options?: GetOptions): Promise<Lease>;
  create(lease: Lease, options?: RequestOptions): Promise<Lease>;
  update(lease: Lease, options?: RequestOptions): Promise<Lease>;
}

/** LeaderElectorOptions configure a {@link LeaderElector} (durations: client-go's defaults). */
export interface LeaderElectorOptions {
  /** name is the Lease's name. */
  name: string;
  /** identity names this candidate in the Lease (unique per process: host name plus a random suffix). */
  identity: string;
  /** leaseDurationMs is how long others wait after the last renewal they saw before taking over (default 15 s). */
  leaseDurationMs?: number | undefined;
  /** renewDeadlineMs is how long the leader keeps trying to renew before it stops leading (default 10 s). */
  renewDeadlineMs?: number | undefined;
  /** retryPeriodMs is the wait between attempts (default 2 s, jittered ×1.2 while acquiring). */
  retryPeriodMs?: number | undefined;
  /** releaseOnCancel gives the Lease up when the run's signal aborts, so another leads at once (default true). */
  releaseOnCancel?: boolean | undefined;
  /**
   * onStartedLeading runs when this candidate becomes leader; `signal` aborts when it stops
   * leading, with a `RuntimeError` `ERR_RUNTIME_LEADERSHIP_LOST` as reason when a renewal failed
   * (a Controller started on it then stops at once, without draining).
   */
  onStartedLeading?: ((signal: AbortSignal) => void | Promise<void>) | undefined;
  /** onStoppedLeading runs once leadership ends, before a release. */
  onStoppedLeading?: (() => void) | undefined;
  /** onNewLeader runs when the observed leader changes (this candidate included). */
  onNewLeader?: ((identity: string) => void) | undefined;
  logger?: Logger | undefined;
  clock?: Clock | undefined;
  /** now is the wall clock written into the Lease (default `Date.now`). */
  now?: (() => number) | undefined;
  random?: (() => number) | undefined;
}

/** Deadline bounds one attempt to acquire or renew: its signal aborts when the time is up. */
interface Deadline {
  readonly signal: AbortSignal;
  /** remainingMs is the time left, at least 1 ms (each request's own timeout). */
  remainingMs(): number;
  dispose(): void;
}

/** Attempt is how one try went: this candidate holds the Lease, another does, or it failed. */
type Attempt = 'held' | 'taken' | 'failed';

/** untilAborted is `work`'s result, or `fallback` as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, fallback: T): Promise<T> {
  if (signal.aborted) return Promise.resolve(fallback);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(fallback);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** microTime renders a wall-clock time as a Kubernetes MicroTime (RFC 3339, six fractional digits). */
export function microTime(milliseconds: number): string {
  return new Date(milliseconds).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function sameRecord(a: LeaseSpec | undefined, b: LeaseSpec | undefined): boolean {
  return (
    a?.holderIdentity === b?.holderIdentity &&
    a?.renewTime === b?.renewTime &&
    a?.acquireTime === b?.acquireTime &&
    a?.leaseTransitions === b?.leaseTransitions &&
    a?.leaseDurationSeconds === b?.leaseDurationSeconds
  );
}

/**
 * LeaderElector is client-go's leader election on a Lease. `run(signal)` tries to acquire the
 * Lease every retry period; once it holds it, it calls `onStartedLeading(signal)` and renews it
 * every retry period (an update of the Lease as last seen: one request; a read first only when
 * that fails). Others see the Lease held until `leaseDuration` after the last change they
 * observed (on their own clock, never the holder's). A leader that cannot renew within
 * `renewDeadline` (< leaseDuration) stops leading first — its signal aborts and
 * `onStoppedLeading` runs — so two leaders never overlap. When `run`'s signal aborts, the leader
 * stops leading and, with `releaseOnCancel`, empties the Lease so another candidate takes over
 * at once. `run` resolves once this candidate stopped leading (or was stopped while waiting).
 */
export class LeaderElector {
  readonly #leases: LeaseClient;
  readonly #name: string;
  readonly #identity: string;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #releaseOnCancel: boolean;
  readonly #options: LeaderElectorOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #now: () => number;
  readonly #random: () => number;
  #observed: Lease | undefined;
  #observedAt = -Infinity;
  /** #writtenAt is when this candidate's last successful write of the Lease was sent. */
  #writtenAt = -Infinity;
  #leading = false;
  #reportedLeader: string | undefined;

  constructor(leases: LeaseClient, options: LeaderElectorOptions) {
    this.#leases = leases;
    this.#name = options.name;
    this.#identity = options.identity;
    this.#leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.#releaseOnCancel = options.releaseOnCancel ?? true;
    if (!(
      this.#leaseDurationMs > this.#renewDeadlineMs &&
      this.#renewDeadlineMs > this.#retryPeriodMs * 1.2
    )) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        'leader election needs leaseDuration > renewDeadline > retryPeriod × 1.2',
      );
    }
    if (!options.identity) {
      throw new RuntimeError('ERR_RUNTIME_CONFIGURATION', 'leader election needs an identity');
    }
    this.#options = options;
    this.#logger = options.logger ?? SILENT_LOGGER;
    this.#clock = options.clock ?? systemClock;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
  }

  /** name is the Lease's name. */
  get name(): string {
    return this.#name;
  }

  /** isLeader is true while this candidate leads. */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** leader is the holder of the Lease as last observed ('' when released, undefined before the first look). */
  get leader(): string | undefined {
    return this.#observed?.spec?.holderIdentity;
  }

  /**
   * healthy is client-go's leader-election health check: false when this candidate believes it
   * leads but has not renewed for longer than the lease duration plus `toleranceMs` (default 20 s).
   */
  healthy(toleranceMs = 20_000): boolean {
    return (
      !this.#leading || this.#clock.now() - this.#observedAt <= this.#leaseDurationMs + toleranceMs
    );
  }

  /** run competes for the Lease until leadership is lost or `signal` aborts (see the class). */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await this.#acquire(signal))) return;
    const leadership = new AbortController();
    this.#leading = true;
    this.#logger.info('started leading', { lease: this.#name, identity: this.#identity });
    void Promise.resolve()
      .then(() => this.#options.onStartedLeading?.(leadership.signal))
      .catch((error: unknown) =>
        this.#logger.error('onStartedLeading failed', {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    const why = await this.#renewLoop(signal);
    this.#leading = false;
    // A stop asked for keeps its reason (work may drain); a lost renewal is a loss, and work
    // must stop at once (see isLeadershipLost).
    leadership.abort(
      signal.aborted
        ? new Error(`leadership of lease ${this.#name} ended: the elector was stopped`)
        : new RuntimeError(
            'ERR_RUNTIME_LEADERSHIP_LOST',
            `leadership of lease ${this.#name} was lost: ${why}`,
          ),
    );
    this.#logger.info('stopped leading', { lease: this.#name, identity: this.#identity });
    try {
      this.#options.onStoppedLeading?.();
    } catch (error) {
      this.#logger.error('onStoppedLeading failed', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
    if (signal.aborted && this.#releaseOnCancel) await this.release();
  }

  async #acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if ((await this.#attempt(signal)) === 'held') return true;
      const wait = this.#retryPeriodMs * (1 + this.#random() * 1.2);
      await sleep(this.#clock, wait, signal).catch(() => undefined);
    }
    return false;
  }

  /** #attempt is one try to acquire, bounded as a whole (all its requests) by the renew deadline. */
  #attempt(signal: AbortSignal): Promise<Attempt> {
    return this.#bounded(signal, this.#clock.now() + this.#renewDeadlineMs);
  }

  /**
   * #bounded makes one attempt whose requests all end by `deadline` (a clock time): their signal
   * aborts then, and the attempt counts as failed at the deadline even if a request ignores its
   * signal (a Lease client of your own), so nothing waits past it.
   */
  async #bounded(signal: AbortSignal, deadline: number): Promise<Attempt> {
    if (deadline <= this.#clock.now()) return 'failed';
    const attempt = this.#until(signal, deadline);
    try {
      return await untilAborted(this.#tryAcquireOrRenew(attempt, signal), attempt.signal, 'failed');
    } finally {
      attempt.dispose();
    }
  }

  /** #until is a {@link Deadline} at `deadline` (a clock time), also aborted by `signal`. */
  #until(signal: AbortSignal | undefined, deadline: number): Deadline {
    const linked = linkSignals([signal], {
      timeoutMs: Math.max(0, deadline - this.#clock.now()),
      clock: this.#clock,
      timeoutReason: () =>
        new Error(
          `lease ${this.#name}: no answer within the renew deadline (${this.#renewDeadlineMs} ms)`,
        ),
    });
    return {
      signal: linked.signal,
      remainingMs: () => Math.max(1, Math.ceil(deadline - this.#clock.now())),
      dispose: () => linked.dispose(),
    };
  }

  /** #renewLoop renews until it cannot or `signal` aborts; says why leading ended. */
  async #renewLoop(signal: AbortSignal): Promise<string> {
    while (!signal.aborted) {
      // Every request and wait of a renewal ends by the renew deadline, counted from when the
      // last successful write was sent (the server's record is no older than that): the leader
      // stops before the Lease can expire for the others, whatever the connection does.
      const deadline = this.#writtenAt + this.#renewDeadlineMs;
      let outcome: Attempt = 'failed';
      while (!signal.aborted && this.#clock.now() < deadline) {
        outcome = await this.#bounded(signal, deadline);
        if (outcome !== 'failed') break;
        const wait = Math.min(this.#retryPeriodMs, deadline - this.#clock.now());
        await sleep(this.#clock, wait, signal).catch(() => undefined);
      }
      if (signal.aborted) return 'the elector was stopped';
      if (outcome === 'taken') {
        // Another candidate holds an unexpired Lease: it leads already, so stop now rather than
        // retrying until the renew deadline as client-go does.
        const holder = this.#observed?.spec?.holderIdentity ?? '';
        this.#logger.warn('the lease is held by another candidate', { lease: this.#name, holder });
        return `the lease is held by ${holder}`;
      }
      if (outcome === 'failed') {
        this.#logger.warn('failed to renew the lease in time', {
          lease: this.#name,
          identity: this.#identity,
        });
        return `not renewed within ${this.#renewDeadlineMs} ms`;
      }
      await sleep(this.#clock, this.#retryPeriodMs, signal).catch(() => undefined);
    }
    return 'the elector was stopped';
  }

  /** #written records a Lease this candidate wrote, with the time the write was sent. */
  #written(lease: Lease, sentAt: number): void {
    this.#observe(lease);
    this.#writtenAt = sentAt;
  }

  #observe(lease: Lease): void {
    if (!sameRecord(lease.spec, this.#observed?.spec)) this.#observedAt = this.#clock.now();
    this.#observed = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder && holder !== this.#reportedLeader) {
      this.#reportedLeader = holder;
      try {
        this.#options.onNewLeader?.(holder);
      } catch (error) {
        this.#logger.error('onNewLeader failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  /**
   * #tryAcquireOrRenew makes one attempt; `attempt` bounds all its requests together (its signal
   * aborts at the deadline), `stop` aborts when the run is stopped (then nothing is logged).
   */
  async #tryAcquireOrRenew(attempt: Deadline, stop: AbortSignal): Promise<Attempt> {
    const { signal } = attempt;
    const options = () => ({ signal, timeoutMs: attempt.remainingMs(), maxRetries: 0 });
    const now = microTime(this.#now());
    const sentAt = this.#clock.now();
    const durationSeconds = Math.ceil(this.#leaseDurationMs / 1000);
    const observed = this.#observed;
    if (
      this.#leading &&
      observed?.spec?.holderIdentity === this.#identity &&
      this.#clock.now() < this.#observedAt + this.#leaseDurationMs
    ) {
      // client-go's fast path: the leader renews the Lease as it last saw it, without reading it
      // first (one request per renewal, not two); if that fails (someone else wrote it), it reads.
      try {
        const renewed = await this.#leases.update(
          {
            ...observed,
            spec: { ...observed.spec, leaseDurationSeconds: durationSeconds, renewTime: now },
          },
          options(),
        );
        this.#written(renewed, sentAt);
        return 'held';
      } catch (error) {
        if (signal.aborted) return 'failed';
        this.#logger.debug('failed to renew the lease as last seen; reading it', {
          lease: this.#name,
          error: String(error),
        });
      }
    }
    let current: Lease;
    try {
      current = await this.#leases.get(this.#name, options());
    } catch (error) {
      if (stop.aborted) return 'failed';
      if (!isNotFound(error)) {
        this.#logger.warn('error retrieving the lease', {
          lease: this.#name,
          error: String(error),
        });
        return 'failed';
      }
      try {
        const created = await this.#leases.create(
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: this.#name },
            spec: {
              holderIdentity: this.#identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: now,
              renewTime: now,
              leaseTransitions: 0,
            },
          },
          options(),
        );
        this.#written(created, sentAt);
        return 'held';
      } catch (error) {
        // Logged: a create that always fails (no RBAC for it, say) would otherwise look like a
        // candidate that silently never leads.
        if (!stop.aborted) {
          this.#logger.warn('failed to create the lease', {
            lease: this.#name,
            error: String(error),
          });
        }
        return 'failed';
      }
    }
    this.#observe(current);
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    // Another holder's Lease lasts as long as its record says (its settings may differ from
    // ours), counted from when we saw it change, on our clock (client-go).
    const holderDurationMs =
      spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds > 0
        ? spec.leaseDurationSeconds * 1000
        : this.#leaseDurationMs;
    if (
      holder !== '' &&
      holder !== this.#identity &&
      this.#clock.now() < this.#observedAt + holderDurationMs
    ) {
      return 'taken';
    }
    const mine = holder === this.#identity;
    try {
      const updated = await this.#leases.update(
        {
          ...current,
          spec: {
            ...spec,
            holderIdentity: this.#identity,
            leaseDurationSeconds: durationSeconds,
            renewTime: now,
            acquireTime: mine ? (spec.acquireTime ?? now) : now,
            leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
          },
        },
        options(),
      );
      this.#written(updated, sentAt);
      return 'held';
    } catch (error) {
      if (!stop.aborted)
        this.#logger.warn('failed to update the lease', {
          lease: this.#name,
          error: String(error),
        });
      return 'failed';
    }
  }

  /**
   * release empties the Lease if this candidate holds it, so another leads at once. `run` does it
   * itself with `releaseOnCancel`; call it yourself after `run` resolved when you turned that off
   * to release only once your work stopped (a Manager does). Failures are logged, not thrown.
   */
  async release(): Promise<void> {
    if (this.#leading) return;
    const observed = this.#observed;
    if (!observed || observed.spec?.holderIdentity !== this.#identity) return;
    // One deadline for the whole release, as for a renewal: a stalled server delays the
    // shutdown by the renew deadline at most.
    const bounded = this.#until(undefined, this.#clock.now() + this.#renewDeadlineMs);
    const options = () => ({
      signal: bounded.signal,
      timeoutMs: bounded.remainingMs(),
      maxRetries: 0,
    });
    const emptied = (lease: Lease): Lease => {
      const now = microTime(this.#now());
      return {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: now,
          acquireTime: now,
        },
      };
    };
    try {
      let released: Lease;
      try {
        released = await this.#leases.update(emptied(observed), options());
      } catch (error) {
        // A renewal cut short by the stop may still have reached the server: the Lease changed
        // since it was last seen. Release the current one, if it is still this candidate's.
        if (!isConflict(error)) throw error;
        const current = await this.#leases.get(this.#name, options());
        if (current.spec?.holderIdentity !== this.#identity) return;
        released = await this.#leases.update(emptied(current), options());
      }
      this.#observe(released);
      this.#logger.info('released the lease', { lease: this.#name, identity: this.#identity });
    } catch (error) {
      this.#logger.warn('failed to release the lease', { lease: this.#name, error: String(error) });
    } finally {
      bounded.dispose();
    }
  }
}
