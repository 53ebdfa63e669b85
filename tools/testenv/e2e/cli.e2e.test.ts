import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readControlPlaneState } from '../src/connection.js';
import { isAlive, kubectl } from './helpers.js';

const launcher = fileURLToPath(new URL('../bin/k-testenv.mjs', import.meta.url));
const scratch = await mkdtemp(join(tmpdir(), 'k-testenv-cli-'));
const stateFile = join(scratch, 'up.json');
afterAll(async () => {
  await cli(['down', `--state-file=${stateFile}`]);
  await rm(scratch, { recursive: true, force: true });
});

function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [launcher, ...args],
      { timeout: 120_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}

describe('k-testenv CLI', () => {
  it('up starts a detached control plane, status sees it, down stops it', async () => {
    const up = await cli([
      'up',
      `--state-file=${stateFile}`,
      '--apiserver-flag=--max-requests-inflight=123',
      '--nodes=3',
    ]);
    expect(up.code, up.stderr).toBe(0);
    const kubeconfigPath = up.stdout.trim();
    expect(kubeconfigPath).toMatch(/k-testenv-[^/]+\/kubeconfig$/);
    expect(up.stderr).toContain(`K_TESTENV_KUBECONFIG=${kubeconfigPath}`);

    const namespaces = await kubectl(kubeconfigPath, [
      'get',
      'namespace',
      'kube-system',
      '-o',
      'name',
    ]);
    expect(namespaces.stdout.trim()).toBe('namespace/kube-system');
    const nodes = await kubectl(kubeconfigPath, ['get', 'nodes', '--no-headers']);
    expect(
      nodes.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/).slice(0, 2)),
    ).toEqual([
      ['k-testenv-node-0', 'Ready'],
      ['k-testenv-node-1', 'Ready'],
      ['k-testenv-node-2', 'Ready'],
    ]);
    const state = readControlPlaneState(kubeconfigPath);
    const apiServer = state.processes.find((child) => child.name === 'kube-apiserver')!;
    const commandLine = await readFile(`/proc/${apiServer.pid}/cmdline`, 'utf8');
    expect(commandLine.split('\0')).toContain('--max-requests-inflight=123');

    const again = await cli(['up', `--state-file=${stateFile}`]);
    expect(again.stdout.trim()).toBe(kubeconfigPath);
    expect(again.stderr).toContain('already up');

    const status = await cli(['status', `--state-file=${stateFile}`]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^up https:\/\/127\.0\.0\.1:\d+ /);

    const down = await cli(['down', `--state-file=${stateFile}`]);
    expect(down.code, down.stderr).toBe(0);
    expect(state.processes.filter((child) => isAlive(child.pid))).toEqual([]);
    expect(existsSync(state.runDir)).toBe(false);
    expect(existsSync(stateFile)).toBe(false);

    const after = await cli(['status', `--state-file=${stateFile}`]);
    expect(after.code).toBe(3);
    expect(after.stdout.trim()).toBe('down');
  });

  it('rejects unknown commands with usage and exit code 2', async () => {
    const result = await cli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command frobnicate');
    expect(result.stderr).toContain('usage: k-testenv');
  });
});
