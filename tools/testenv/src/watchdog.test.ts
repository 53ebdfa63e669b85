import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from './build-lock.js';

const tsxLoader = createRequire(import.meta.url).resolve('tsx');
const fixture = fileURLToPath(new URL('./__fixtures__/watchdog-parent.ts', import.meta.url));

interface Started {
  parent: ReturnType<typeof spawn>;
  watchdog: number;
  children: number[];
}

async function startParent(runDir: string, mode: 'hang' | 'disarm'): Promise<Started> {
  const parent = spawn(process.execPath, ['--import', tsxLoader, fixture, runDir, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let output = '';
    parent.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) resolve(output.split('\n')[0]!);
    });
    parent.once('exit', (code) => reject(new Error(`fixture exited with ${code}`)));
  });
  return { parent, ...(JSON.parse(line) as { watchdog: number; children: number[] }) };
}

/** isRunning is true for a live process that is not a zombie (signal 0 succeeds on zombies). */
function isRunning(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(50);
  }
  return condition();
}

describe('watchdog', { timeout: 20_000 }, () => {
  it('kills reported children, unreported ones (by argument or working dir) and removes the run dir when the parent is SIGKILLed', async () => {
    const runDir = await mkdtemp(join(tmpdir(), 'k-testenv-watchdog-'));
    const started = await startParent(runDir, 'hang');
    expect(started.children).toHaveLength(3);
    expect(started.children.every(isProcessAlive)).toBe(true);
    started.parent.kill('SIGKILL');
    expect(await waitUntil(() => !started.children.some(isRunning), 10_000)).toBe(true);
    expect(await waitUntil(() => !existsSync(runDir), 2_000)).toBe(true);
    expect(await waitUntil(() => !isProcessAlive(started.watchdog), 2_000)).toBe(true);
  });

  it('also ends processes started for the run (K_ENVTEST_RUN_DIR or K_TESTENV_RUN_DIR naming the run dir), never one that only has its kubeconfig', async () => {
    const runDir = await mkdtemp(join(tmpdir(), 'k-testenv-watchdog-'));
    // Started by this test, not by the parent: the watchdog finds them by their environment alone
    // (like vitest's workers or the command of `k-envtest run`), not by arguments or directory.
    const withEnvironment = (env: Record<string, string>) =>
      spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
        stdio: 'ignore',
        env: { ...process.env, ...env },
      });
    const runners = [
      withEnvironment({ K_ENVTEST_RUN_DIR: runDir }),
      withEnvironment({ K_TESTENV_RUN_DIR: runDir }),
    ];
    const bystanders = [
      withEnvironment({ K_ENVTEST_KUBECONFIG: join(runDir, 'kubeconfig') }),
      withEnvironment({ K_ENVTEST_RUN_DIR: `${runDir}-other` }),
      withEnvironment({ OTHER_RUN_DIR: runDir }),
    ];
    try {
      const started = await startParent(runDir, 'hang');
      started.parent.kill('SIGKILL');
      expect(await waitUntil(() => !started.children.some(isRunning), 10_000)).toBe(true);
      expect(await waitUntil(() => !runners.some((child) => isRunning(child.pid!)), 2_000)).toBe(
        true,
      );
      expect(await waitUntil(() => !existsSync(runDir), 2_000)).toBe(true);
      expect(bystanders.map((child) => isRunning(child.pid!))).toEqual([true, true, true]);
    } finally {
      for (const child of [...runners, ...bystanders]) child.kill('SIGKILL');
      await rm(runDir, { recursive: true, force: true });
    }
  });

  it('does nothing after disarm, when the parent stopped everything itself', async () => {
    const runDir = await mkdtemp(join(tmpdir(), 'k-testenv-watchdog-'));
    const started = await startParent(runDir, 'disarm');
    try {
      expect(await waitUntil(() => !isProcessAlive(started.watchdog), 5_000)).toBe(true);
      // Longer than the watchdog's re-parenting grace, so a wrong cleanup would have happened.
      await sleep(3000);
      expect(started.children.every(isRunning)).toBe(true);
      expect(existsSync(runDir)).toBe(true);
    } finally {
      for (const pid of started.children) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone: the assertions above say why.
        }
      }
      await rm(runDir, { recursive: true, force: true });
    }
  });
});
