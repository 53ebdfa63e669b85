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
});
