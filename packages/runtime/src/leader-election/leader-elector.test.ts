// The elector's decisions on scripted Lease answers; the real server's behaviour is in
// e2e/leader-election.e2e.test.ts.
import type { Lease } from '@k/clientset/coordination/v1';
import type { RequestOptions } from '@k/clientset';
import { ApiError, RequestTimeoutError } from '@k/rest';
import { FakeClock } from '@k/rest/testing';
import { describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../logger.js';
import { LeaseServer } from './__fixtures__/lease-server.js';
import { LeaderElector, type LeaseClient } from './leader-elector.js';

const status = (code: number, reason: string) =>
  new ApiError({ kind: 'Status', status: 'Failure', code, reason, message: `leases: ${reason}` });

function recordingLogger(): Logger & { warnings: [string, LogFields | undefined][] } {
  const warnings: [string, LogFields | undefined][] = [];
  const drop = () => {};
  return { warnings, debug: drop, info: drop, error: drop, warn: (m, f) => warnings.push([m, f]) };
}

describe('LeaderElector', () => {
  it('says why it cannot create the Lease, instead of waiting silently for ever', async () => {
    const stop = new AbortController();
    let creates = 0;
    const leases: LeaseClient = {
      get: () => Promise.reject(status(404, 'NotFound')),
      create: () => {
        creates += 1;
        if (creates === 2) stop.abort();
        return Promise.reject(status(403, 'Forbidden'));
      },
      update: (lease: Lease) => Promise.resolve(lease),
    };
    const logger = recordingLogger();
    const elector = new LeaderElector(leases, {
      name: 'demo',
      identity: 'me',
      leaseDurationMs: 300,
      renewDeadlineMs: 200,
      retryPeriodMs: 10,
      logger,
    });
    await elector.run(stop.signal);
    expect(elector.isLeader).toBe(false);
    expect(logger.warnings.map(([message, fields]) => [message, fields?.lease])).toEqual([
      ['failed to create the lease', 'demo'],
    ]);
    expect(String(logger.warnings[0]?.[1]?.error)).toMatch(/Forbidden/);
  });

  it('renews the Lease it holds with one update each time, reading it only when someone else wrote it', async () => {
    const server = new LeaseServer();
    const stop = new AbortController();
    const elector = quickElector(server);
    const running = elector.run(stop.signal);
    await until(() => server.updates >= 5);
    // The first look found no Lease (404) and created it; no renewal read it since.
    expect(server.gets).toBe(1);
    expect(elector.isLeader).toBe(true);

    server.touchByOthers();
    const updatesBefore = server.updates;
    await until(() => server.updates >= updatesBefore + 3);
    expect(server.conflicts).toBe(1);
    expect(server.gets).toBe(2);
    expect(elector.isLeader).toBe(true);
    expect(server.lease?.spec?.holderIdentity).toBe('me');
    stop.abort();
    await running;
    expect(server.lease?.spec?.holderIdentity).toBe('');
  });
});

describe('LeaderElector timing (fake clock)', () => {
  it("waits out another holder's Lease for the duration its record says, not its own", async () => {
    const clock = new FakeClock();
    const server = new LeaseServer();
    await server.create({
      metadata: { name: 'demo' },
      spec: { holderIdentity: 'other', leaseDurationSeconds: 60, renewTime: 'then' },
    });
    const stop = new AbortController();
    let ledAt: number | undefined;
    const elector = new LeaderElector(server, {
      name: 'demo',
      identity: 'me',
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 100,
      clock,
      random: () => 0,
      onStartedLeading: () => void (ledAt = clock.now()),
    });
    const running = elector.run(stop.signal);
    await advance(clock, 59_000);
    expect(ledAt).toBeUndefined();
    expect(elector.leader).toBe('other');
    await advance(clock, 1_200);
    expect(ledAt).toBeGreaterThanOrEqual(60_000);
    expect(elector.isLeader).toBe(true);
    stop.abort();
    await clock.runAll();
    await running;
  });

  // lease 10 s, renew deadline 7 s, retry 1 s: the leader must have stopped before the others
  // may take the Lease, 10 s after the last write of it they saw.
  function timedElector(server: LeaseClient, clock: FakeClock) {
    const times: { stoppedAt?: number } = {};
    const elector = new LeaderElector(server, {
      name: 'demo',
      identity: 'me',
      leaseDurationMs: 10_000,
      renewDeadlineMs: 7_000,
      retryPeriodMs: 1_000,
      clock,
      random: () => 0,
      onStoppedLeading: () => void (times.stoppedAt = clock.now()),
    });
    return { elector, times };
  }

  it.each([
    { client: 'that honours its signal', ignoresSignals: false },
    { client: 'of your own that ignores its signal', ignoresSignals: true },
  ])(
    'stops leading within the renew deadline when every request of a renewal stalls (a Lease client $client)',
    async ({ ignoresSignals }) => {
      const clock = new FakeClock();
      const server = new StallingLeaseServer(clock, ignoresSignals);
      const { elector, times } = timedElector(server, clock);
      const running = elector.run(new AbortController().signal);
      await advance(clock, 3_500);
      expect(elector.isLeader).toBe(true);
      const lastRenewal = server.lastWriteAt;
      server.stalled = true;
      await advance(clock, 20_000);
      await running;
      expect(times.stoppedAt! - lastRenewal).toBeLessThanOrEqual(7_000);
    },
  );

  it('counts the renew deadline from when the last successful renewal was sent, however late its answer', async () => {
    const clock = new FakeClock();
    const server = new StallingLeaseServer(clock, false);
    const { elector, times } = timedElector(server, clock);
    const running = elector.run(new AbortController().signal);
    await advance(clock, 3_500);
    // The next renewal is stored at once but answered 5 s later; every request after it stalls.
    server.answerNextWriteAfterMs = 5_000;
    await advance(clock, 20_000);
    await running;
    const stored = server.lastWriteAt;
    expect(times.stoppedAt! - stored).toBeLessThanOrEqual(7_000);
  });

  it('stops leading at once when it sees another candidate hold the Lease', async () => {
    const clock = new FakeClock();
    const server = new StallingLeaseServer(clock, false);
    const { elector, times } = timedElector(server, clock);
    const running = elector.run(new AbortController().signal);
    await advance(clock, 3_500);
    server.takeOver('other', 60);
    const takenAt = clock.now();
    await advance(clock, 20_000);
    await running;
    // One retry period at most: the next renewal reads the Lease and finds it taken.
    expect(times.stoppedAt! - takenAt).toBeLessThanOrEqual(1_000);
    expect(elector.leader).toBe('other');
  });
});

describe('LeaderElector.release', () => {
  it('releases the Lease even when the stop cut short a renewal that still reached the server', async () => {
    const server = new LeaseServer();
    const stop = new AbortController();
    const elector = quickElector(server);
    const running = elector.run(stop.signal);
    await until(() => server.updates >= 2);
    // The next renewal is written, but the stop aborts the request before its answer arrives.
    server.afterNextUpdate = () => {
      stop.abort();
      return new DOMException('This operation was aborted', 'AbortError');
    };
    await running;
    expect(server.conflicts).toBe(1);
    expect(server.lease?.spec?.holderIdentity).toBe('');
  });
});

/**
 * StallingLeaseServer is a LeaseServer whose requests, once `stalled`, never answer: they end only
 * when their signal aborts or their own `timeoutMs` passes on the fake clock (as @k/rest's would),
 * or never for a client that ignores both. `answerNextWriteAfterMs` stores the next write at once
 * but answers it that much later, and stalls everything after it.
 */
class StallingLeaseServer extends LeaseServer {
  stalled = false;
  answerNextWriteAfterMs: number | undefined;
  lastWriteAt = 0;
  readonly #clock: FakeClock;
  readonly #ignoresSignals: boolean;

  constructor(clock: FakeClock, ignoresSignals: boolean) {
    super();
    this.#clock = clock;
    this.#ignoresSignals = ignoresSignals;
  }

  override get(name?: string, options?: RequestOptions): Promise<Lease> {
    return this.stalled ? this.#stall(options) : super.get();
  }

  override create(lease: Lease, options?: RequestOptions): Promise<Lease> {
    if (this.stalled) return this.#stall(options);
    this.lastWriteAt = this.#clock.now();
    return super.create(lease);
  }

  override async update(lease: Lease, options?: RequestOptions): Promise<Lease> {
    if (this.stalled) return this.#stall(options);
    this.lastWriteAt = this.#clock.now();
    const stored = await super.update(lease);
    const delay = this.answerNextWriteAfterMs;
    if (delay === undefined) return stored;
    this.answerNextWriteAfterMs = undefined;
    this.stalled = true;
    await new Promise((resolve) => this.#clock.setTimeout(() => resolve(undefined), delay));
    return stored;
  }

  #stall(options: RequestOptions | undefined): Promise<never> {
    return new Promise((_resolve, reject) => {
      if (this.#ignoresSignals) return;
      const { signal, timeoutMs } = options ?? {};
      if (timeoutMs) {
        this.#clock.setTimeout(
          () =>
            reject(
              new RequestTimeoutError(
                'ERR_REST_REQUEST_TIMEOUT',
                { method: 'PUT', path: '/leases' },
                timeoutMs,
              ),
            ),
          timeoutMs,
        );
      }
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
  }
}

/** quickElector competes as `me` for the Lease `demo`, retrying every 5 ms. */
function quickElector(leases: LeaseClient): LeaderElector {
  return new LeaderElector(leases, {
    name: 'demo',
    identity: 'me',
    leaseDurationMs: 2000,
    renewDeadlineMs: 1500,
    retryPeriodMs: 5,
  });
}

/** advance moves the fake clock in 100 ms steps, letting every promise chain settle at each. */
async function advance(clock: FakeClock, milliseconds: number): Promise<void> {
  for (let left = milliseconds; left > 0; left -= 100) {
    await clock.advance(Math.min(100, left));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
