import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireBuildLock, isProcessAlive } from './build-lock.js';
import { ControlPlaneError } from './errors.js';

const dir = await mkdtemp(join(tmpdir(), 'k-testenv-lock-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('acquireBuildLock', () => {
  it('records the owner and removes the file on release', async () => {
    const path = join(dir, 'a.lock');
    const lock = await acquireBuildLock(path);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
    });
    await lock.release();
    await lock.release();
    await expect(readFile(path)).rejects.toThrow(/ENOENT/);
  });

  it('lets only one holder in at a time', async () => {
    const path = join(dir, 'b.lock');
    let inside = 0;
    let maximum = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        const lock = await acquireBuildLock(path, { pollMs: 10 });
        inside++;
        maximum = Math.max(maximum, inside);
        await sleep(30);
        inside--;
        await lock.release();
      }),
    );
    expect(maximum).toBe(1);
  });

  it('reports the wait and takes the lock once the holder releases it', async () => {
    const path = join(dir, 'c.lock');
    const first = await acquireBuildLock(path);
    const waits: (number | undefined)[] = [];
    const second = acquireBuildLock(path, {
      pollMs: 10,
      onWait: (owner) => waits.push(owner?.pid),
    });
    await sleep(50);
    expect(waits).toEqual([process.pid]);
    await first.release();
    await (await second).release();
  });

  it('takes over a lock whose owner process is dead', async () => {
    const path = join(dir, 'd.lock');
    const pid = await deadPid();
    expect(isProcessAlive(pid)).toBe(false);
    await writeFile(path, JSON.stringify({ pid, hostname: hostname(), acquiredAt: 'then' }));
    const lock = await acquireBuildLock(path, { timeoutMs: 2000, pollMs: 10 });
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('times out with BUILD_LOCK_TIMEOUT while a live process holds it', async () => {
    const path = join(dir, 'e.lock');
    const held = await acquireBuildLock(path);
    const error = await acquireBuildLock(path, { timeoutMs: 100, pollMs: 10 }).catch(
      (caught: unknown) => caught,
    );
    expect(ControlPlaneError.isInstance(error)).toBe(true);
    expect((error as ControlPlaneError).code).toBe('BUILD_LOCK_TIMEOUT');
    expect((error as Error).message).toContain(`pid ${process.pid}`);
    await held.release();
  });
});
