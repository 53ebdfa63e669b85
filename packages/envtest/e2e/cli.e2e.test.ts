// The k-envtest command as a user runs it (bin/k-envtest.mjs, from source in the workspace): up,
// status and down; run's exit code and Ctrl-C; assets. The public cache root is pointed at the
// workspace's warm cache (K_ENVTEST_CACHE), so nothing is built.
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readControlPlaneState } from '@k/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childEnvironment,
  isAlive,
  K_ENVTEST_BIN,
  processesMentioning,
  start,
  waitUntil,
} from './processes.js';

/** The lightest plane: no nodes, no controllers. */
const LIGHT = ['--nodes=0', '--no-controller-manager', '--no-scheduler'];

let scratch: string;
let stateFile: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'k-envtest-cli-'));
  stateFile = path.join(scratch, 'up.json');
});
afterAll(async () => {
  await kEnvtest(['down', `--state-file=${stateFile}`]);
  await rm(scratch, { recursive: true, force: true });
});

function kEnvtest(args: readonly string[], env: Record<string, string | undefined> = {}) {
  return start(process.execPath, [K_ENVTEST_BIN, ...args], {
    cwd: scratch,
    env: childEnvironment(env),
    timeoutMs: 240_000,
  }).exited;
}

describe('k-envtest', () => {
  it('up starts a plane in the background, status sees it, down stops it', async () => {
    const up = await kEnvtest(['up', `--state-file=${stateFile}`, ...LIGHT]);
    expect(up.code, up.stderr).toBe(0);
    const kubeconfigPath = up.stdout.trim();
    expect(up.stderr).toContain(`export K_ENVTEST_KUBECONFIG=${kubeconfigPath}`);
    const state = readControlPlaneState(kubeconfigPath);
    expect(state.processes.map((process) => process.name).sort()).toEqual([
      'etcd',
      'kube-apiserver',
    ]);

    const status = await kEnvtest(['status', `--state-file=${stateFile}`]);
    expect({ code: status.code, stdout: status.stdout }).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^up https:\/\/127\.0\.0\.1:\d+ /) as unknown,
    });

    const down = await kEnvtest(['down', `--state-file=${stateFile}`]);
    expect(down.code, down.stderr).toBe(0);
    expect(state.processes.filter((process) => isAlive(process.pid))).toEqual([]);
    expect(existsSync(state.runDir)).toBe(false);

    const after = await kEnvtest(['status', `--state-file=${stateFile}`]);
    expect({ code: after.code, stdout: after.stdout.trim() }).toEqual({ code: 3, stdout: 'down' });
  }, 300_000);

  it("run gives the command the plane and exits with the command's code", async () => {
    const script = [
      "const { existsSync } = require('node:fs');",
      'const { K_ENVTEST_KUBECONFIG: kubeconfig, KUBECONFIG, K_ENVTEST_RUN_DIR: runDir } = process.env;',
      'console.log(JSON.stringify({ kubeconfig, KUBECONFIG, runDir, exists: existsSync(kubeconfig) }));',
      'process.exitCode = 3;',
    ].join('\n');
    const run = await kEnvtest(['run', ...LIGHT, '--', process.execPath, '-e', script]);
    expect(run.code, run.stderr).toBe(3);
    const seen = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(seen).toEqual({
      kubeconfig: expect.stringMatching(/\/kubeconfig$/) as unknown,
      KUBECONFIG: seen.kubeconfig,
      runDir: path.dirname(String(seen.kubeconfig)),
      exists: true,
    });
    // Stopped after the command.
    expect(existsSync(String(seen.runDir))).toBe(false);
    expect(processesMentioning(String(seen.runDir))).toEqual([]);
  }, 300_000);

  it('Ctrl-C during run reaches the command, stops the plane and exits 130', async () => {
    const script = [
      'console.log(process.env.K_ENVTEST_RUN_DIR);',
      'setInterval(() => {}, 1000);', // dies of the SIGINT, as a program without a handler does
    ].join('\n');
    const run = start(
      process.execPath,
      [K_ENVTEST_BIN, 'run', ...LIGHT, '--', process.execPath, '-e', script],
      {
        cwd: scratch,
        env: childEnvironment(),
        timeoutMs: 240_000,
      },
    );
    const started = await waitUntil(
      () => run.output().stdout.includes('\n') || run.child.exitCode !== null,
      200_000,
    );
    expect(started, JSON.stringify(run.output())).toBe(true);
    const runDir = run.output().stdout.trim();
    expect(existsSync(runDir)).toBe(true);

    // Only to k-envtest (a terminal would signal the whole group): it must pass it on.
    run.child.kill('SIGINT');
    const result = await run.exited;
    expect(result.code, result.stderr).toBe(130);
    expect(existsSync(runDir)).toBe(false);
    expect(processesMentioning(runDir)).toEqual([]);
  }, 300_000);

  it("assets prints a directory in setup-envtest's layout: kube-apiserver, etcd and kubectl", async () => {
    const assets = await kEnvtest(['assets']);
    expect(assets.code, assets.stderr).toBe(0);
    const directory = assets.stdout.trim();
    for (const name of ['kube-apiserver', 'etcd', 'kubectl']) {
      expect(statSync(path.join(directory, name)).mode & 0o111, name).not.toBe(0);
    }
  }, 120_000);
});
