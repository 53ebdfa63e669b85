import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { FakeClock } from '../testing/fake-clock.js';
import { DEFAULT_RETRY, retryOnConflict, retryOnError } from './retry-on-conflict.js';

const conflict = (): ApiError =>
  new ApiError({
    kind: 'Status',
    status: 'Failure',
    code: 409,
    reason: 'Conflict',
    message: 'stale',
  });

describe('retryOnConflict', () => {
  it('reruns the read-modify-write while it conflicts', async () => {
    const attempts: number[] = [];
    const result = await retryOnConflict((attempt) => {
      attempts.push(attempt);
      return attempt < 2 ? Promise.reject(conflict()) : Promise.resolve('updated');
    });
    expect(result).toBe('updated');
    expect(attempts).toEqual([0, 1, 2]);
  });

  it('throws other errors at once', async () => {
    let calls = 0;
    const other = new Error('boom');
    await expect(
      retryOnConflict(() => {
        calls += 1;
        return Promise.reject(other);
      }),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
  });

  it('gives up after DefaultRetry steps (5), 10 ms apart with jitter, throwing the last conflict', async () => {
    const clock = new FakeClock();
    const times: number[] = [];
    const done = retryOnConflict(
      () => {
        times.push(clock.now());
        return Promise.reject(conflict());
      },
      { clock, random: () => 0.5 },
    );
    const settled = done.catch((error: unknown) => error);
    await clock.runAll();
    expect(ApiError.isInstance(await settled)).toBe(true);
    expect(DEFAULT_RETRY.steps).toBe(5);
    expect(times).toEqual([0, 10.5, 21, 31.5, 42]);
  });

  it('retryOnError grows the wait by the factor and stops waiting on abort', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const times: number[] = [];
    const done = retryOnError(
      () => true,
      () => {
        times.push(clock.now());
        if (times.length === 3) controller.abort(new Error('stop'));
        return Promise.reject(new Error('again'));
      },
      {
        backoff: { steps: 10, durationMs: 10, factor: 5, jitter: 0 },
        clock,
        signal: controller.signal,
      },
    ).catch((error: unknown) => error);
    await clock.runAll();
    expect(((await done) as Error).message).toBe('stop');
    expect(times).toEqual([0, 10, 60]);
  });
});
