import { afterEach, describe, expect, it, vi } from 'vitest';
import { EnvtestError } from './errors.js';
import { eventually } from './eventually.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('eventually', () => {
  it('returns the first value a check returns, passing the attempt number', async () => {
    const attempts: number[] = [];
    const value = await eventually(
      (attempt) => {
        attempts.push(attempt);
        if (attempt < 3) throw new Error(`not yet ${attempt}`);
        return Promise.resolve({ attempt });
      },
      { intervalMs: 1 },
    );
    expect(value).toEqual({ attempt: 3 });
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('rethrows the last error unchanged at the deadline', async () => {
    vi.useFakeTimers();
    const errors: Error[] = [];
    const result = eventually(
      () => {
        const error = new Error(`attempt ${errors.length + 1}`);
        errors.push(error);
        throw error;
      },
      { timeoutMs: 1000, intervalMs: 100 },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(1000);
    const thrown = await result;
    expect(thrown).toBe(errors.at(-1));
    // Attempts at 0, 100, …, 1000 ms: the last one at the deadline.
    expect(errors).toHaveLength(11);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits intervalMs between attempts', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    const result = eventually(
      () => {
        attempts++;
        throw new Error('no');
      },
      { timeoutMs: 10_000, intervalMs: 500 },
    ).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(attempts).toBe(1);
    await vi.advanceTimersByTimeAsync(499);
    expect(attempts).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempts).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(attempts).toBe(4);
    await vi.advanceTimersByTimeAsync(10_000);
    await result;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not wait past the deadline for a running attempt: the previous error, else ERR_ENVTEST_TIMEOUT', async () => {
    vi.useFakeTimers();
    const first = new Error('first attempt failed');
    const hanging = eventually(
      (attempt) => {
        if (attempt === 1) throw first;
        return new Promise<never>(() => undefined);
      },
      { timeoutMs: 300, intervalMs: 100 },
    ).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(300);
    expect(await hanging).toBe(first);

    const never = eventually(() => new Promise<never>(() => undefined), { timeoutMs: 200 }).catch(
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(200);
    const timeout = await never;
    expect(EnvtestError.isInstance(timeout) && timeout.code).toBe('ERR_ENVTEST_TIMEOUT');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the signal’s reason when it aborts, and leaves no timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const result = eventually(
      () => {
        throw new Error('no');
      },
      { signal: controller.signal, intervalMs: 1000 },
    ).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(50);
    const reason = new Error('stop');
    controller.abort(reason);
    expect(await result).toBe(reason);
    expect(vi.getTimerCount()).toBe(0);

    const aborted = AbortSignal.abort(reason);
    await expect(eventually(() => 1, { signal: aborted })).rejects.toBe(reason);
  });

  it('refuses bad options with ERR_ENVTEST_INVALID_OPTIONS', async () => {
    for (const options of [{ timeoutMs: -1 }, { intervalMs: Number.NaN }, { timeoutMs: '1' }]) {
      await expect(
        eventually(() => 1, options as unknown as { timeoutMs: number }),
      ).rejects.toMatchObject({ code: 'ERR_ENVTEST_INVALID_OPTIONS' });
    }
    await expect(eventually('no' as unknown as () => 1)).rejects.toMatchObject({
      code: 'ERR_ENVTEST_INVALID_OPTIONS',
    });
  });
});
