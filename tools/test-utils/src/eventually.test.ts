import { describe, expect, it } from 'vitest';
import { eventually, inParallel } from './eventually.js';

describe('eventually', () => {
  it('returns the first value a check gives without throwing', async () => {
    let calls = 0;
    const value = await eventually(
      () => {
        calls += 1;
        if (calls < 3) throw new Error(`not yet ${calls}`);
        return calls;
      },
      5_000,
      1,
    );
    expect(value).toBe(3);
  });

  it('throws the last error once the time is up', async () => {
    let calls = 0;
    await expect(
      eventually(
        () => {
          calls += 1;
          throw new Error(`attempt ${calls}`);
        },
        20,
        5,
      ),
    ).rejects.toThrow(/^attempt \d+$/);
    expect(calls).toBeGreaterThan(1);
  });
});

describe('inParallel', () => {
  it('runs every item, never more than `concurrency` at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await inParallel([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      done.push(item);
      running -= 1;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });
});
