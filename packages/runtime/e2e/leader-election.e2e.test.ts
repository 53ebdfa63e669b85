import { startNodeProgram, type ModuleKind, type RunningNodeProgram } from '@k/test-utils';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { clientsetFor } from './helpers.js';

// Two (then three) real `node` processes, running the built packages, compete for one Lease on
// the real API server with client-go's durations: lease 15 s, renew deadline 10 s, retry 2 s.
const LEASE_MS = 15_000;
const RETRY_MS = 2_000;
// Acquire attempts are jittered up to ×2.2 of the retry period (client-go's JitterUntil 1.2).
const ACQUIRE_WAIT_MS = RETRY_MS * 2.2;
const MARGIN_MS = 1_500;

const CANDIDATE = `const identity = process.env.IDENTITY;
const cs = await inferClientset({ kubeconfig: process.env.KUBECONFIG_PATH, context: 'admin', throttle: 'off' });
const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
const elector = new LeaderElector(cs.coordinationV1.leases(process.env.NAMESPACE), {
  name: process.env.LOCK ?? 'e2e-lock',
  identity,
  ...(process.env.LEASE_MS
    ? { leaseDurationMs: Number(process.env.LEASE_MS), renewDeadlineMs: Number(process.env.RENEW_MS), retryPeriodMs: Number(process.env.RETRY_MS) }
    : {}),
  onStartedLeading: () => console.log('LEADING ' + identity + ' ' + Date.now()),
  onStoppedLeading: () => console.log('STOPPED ' + identity + ' ' + Date.now()),
});
console.log('CANDIDATE ' + identity);
await elector.run(stop.signal);
console.log('RELEASED ' + identity + ' ' + Date.now());
await cs.close();`;

const namespace = useTestNamespace({ prefix: 'runtime-leader' });
const running: RunningNodeProgram[] = [];

afterEach(() => {
  for (const program of running.splice(0)) program.child.kill('SIGKILL');
});

async function candidate(
  identity: string,
  kind: ModuleKind,
  env: Record<string, string> = {},
): Promise<RunningNodeProgram> {
  const program = await startNodeProgram(
    {
      imports: {
        '@k/clientset': ['inferClientset'],
        '@k/runtime/leader-election': ['LeaderElector'],
      },
      main: CANDIDATE,
    },
    kind,
    {
      env: {
        IDENTITY: identity,
        NAMESPACE: namespace.name,
        KUBECONFIG_PATH: environment().kubeconfigPath,
        ...env,
      },
      timeoutMs: 100_000,
    },
  );
  running.push(program);
  await program.waitForStdout(new RegExp(`CANDIDATE ${identity}`), 20_000);
  return program;
}

async function timeOf(
  program: RunningNodeProgram,
  what: string,
  identity: string,
  timeoutMs: number,
): Promise<number> {
  const match = await program.waitForStdout(new RegExp(`${what} ${identity} (\\d+)`), timeoutMs);
  return Number(match[1]);
}

describe('leader election between real processes', () => {
  it('one leads; SIGKILLed, another leads within lease duration + retry; SIGTERM releases at once', async () => {
    const a = await candidate('a', 'esm');
    await timeOf(a, 'LEADING', 'a', 20_000);
    const b = await candidate('b', 'esm');
    await new Promise((resolve) => setTimeout(resolve, 2 * RETRY_MS + 500));
    expect(b.stdout()).not.toMatch(/LEADING/);

    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    const bLeads = await timeOf(b, 'LEADING', 'b', LEASE_MS + ACQUIRE_WAIT_MS + 10_000);
    // Never before the dead leader's lease ran out on b's clock, and soon after.
    expect(bLeads - killedAt).toBeGreaterThan(LEASE_MS - RETRY_MS * 2);
    expect(bLeads - killedAt).toBeLessThanOrEqual(LEASE_MS + ACQUIRE_WAIT_MS + MARGIN_MS);

    const cs = await clientsetFor();
    try {
      const lease = await cs.coordinationV1.leases(namespace.name).get('e2e-lock');
      expect(lease.spec).toMatchObject({
        holderIdentity: 'b',
        leaseDurationSeconds: 15,
        leaseTransitions: 1,
      });
      expect(lease.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

      // A CommonJS candidate waits; b stops gracefully, releases, and c takes over at once.
      const c = await candidate('c', 'cjs');
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      expect(c.stdout()).not.toMatch(/LEADING/);
      b.child.kill('SIGTERM');
      const bStopped = await timeOf(b, 'STOPPED', 'b', 10_000);
      const bReleased = await timeOf(b, 'RELEASED', 'b', 10_000);
      const bExit = await b.exited;
      expect(bExit).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
      const cLeads = await timeOf(c, 'LEADING', 'c', ACQUIRE_WAIT_MS + 5_000);
      // No overlap: b stopped leading before c started; and c did not wait out a lease.
      expect(cLeads).toBeGreaterThanOrEqual(bStopped);
      expect(cLeads - bReleased).toBeLessThanOrEqual(ACQUIRE_WAIT_MS + MARGIN_MS);

      c.child.kill('SIGTERM');
      const cExit = await c.exited;
      expect(cExit).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
      expect(cExit.stdout).toMatch(/RELEASED c/);
      const released = await cs.coordinationV1.leases(namespace.name).get('e2e-lock');
      expect(released.spec?.holderIdentity ?? '').toBe('');
    } finally {
      await cs.close();
    }
  }, 110_000);

  // The leader's connection stalls (accepted, nothing answered) rather than being refused: each
  // renewal must give up at the renew deadline as a whole, so the leader stops before the standby
  // may take the Lease. Lease 10 s, renew deadline 7 s, retry 1 s.
  it('a leader whose requests stall stops leading before another replica takes over', async () => {
    const proxy = await environment().faultProxy();
    const durations = { LEASE_MS: '10000', RENEW_MS: '7000', RETRY_MS: '1000', LOCK: 'stall-lock' };
    try {
      const a = await candidate('a', 'esm', {
        ...durations,
        KUBECONFIG_PATH: proxy.kubeconfigPath,
      });
      await timeOf(a, 'LEADING', 'a', 20_000);
      const b = await candidate('b', 'esm', durations);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(b.stdout()).not.toMatch(/LEADING/);

      await proxy.stall();
      const stalledAt = Date.now();
      const aStopped = await timeOf(a, 'STOPPED', 'a', 20_000);
      const bLeads = await timeOf(b, 'LEADING', 'b', 30_000);
      // a renewed at most one retry period before the stall, and gives up 7 s into its next
      // renewal; b waits 10 s from the last renewal it saw.
      expect(aStopped - stalledAt).toBeLessThanOrEqual(1_000 + 7_000 + MARGIN_MS);
      expect(bLeads).toBeGreaterThan(aStopped);
    } finally {
      await proxy.close();
    }
  }, 90_000);
});
