// The elector's decisions on scripted Lease answers; the real server's behaviour is in
// e2e/leader-election.e2e.test.ts.
import type { Lease } from '@k/clientset/coordination/v1';
import { ApiError } from '@k/rest';
import { describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../logger.js';
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

/** LeaseServer keeps one Lease as the API server would: a resourceVersion per write, 409 on a stale one. */
class LeaseServer implements LeaseClient {
  lease: Lease | undefined;
  gets = 0;
  updates = 0;
  conflicts = 0;
  /** afterNextUpdate runs once, after the next update was stored; an error it returns is the answer instead. */
  afterNextUpdate: (() => Error | undefined) | undefined;
  #version = 0;

  get(): Promise<Lease> {
    this.gets += 1;
    return this.lease
      ? Promise.resolve(structuredClone(this.lease))
      : Promise.reject(status(404, 'NotFound'));
  }

  create(lease: Lease): Promise<Lease> {
    this.lease = this.#stored(lease);
    return Promise.resolve(structuredClone(this.lease));
  }

  update(lease: Lease): Promise<Lease> {
    if (lease.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) {
      this.conflicts += 1;
      return Promise.reject(status(409, 'Conflict'));
    }
    this.updates += 1;
    this.lease = this.#stored(lease);
    const after = this.afterNextUpdate;
    this.afterNextUpdate = undefined;
    const lost = after?.();
    return lost ? Promise.reject(lost) : Promise.resolve(structuredClone(this.lease));
  }

  /** touchByOthers is someone else's write (a label): the holder's copy is now stale. */
  touchByOthers(): void {
    this.lease = this.#stored({
      ...this.lease!,
      metadata: { ...this.lease!.metadata, labels: { touched: 'yes' } },
    });
  }

  #stored(lease: Lease): Lease {
    this.#version += 1;
    return {
      ...structuredClone(lease),
      metadata: { ...lease.metadata, resourceVersion: String(this.#version) },
    };
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

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
