import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { controlPlane, useTestNamespace } from '../src/vitest.js';
import { kubectl, waitFor } from './helpers.js';

// Against the shared control plane: kube-scheduler places Pods on kwok's fake nodes, kwok plays
// their lifecycle, and its kubelet API answers exec and logs through kube-apiserver.
const scratch = await mkdtemp(join(tmpdir(), 'k-testenv-nodes-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

interface PodList {
  readonly items: readonly {
    readonly metadata: { readonly name: string };
    readonly spec: { readonly nodeName?: string };
    readonly status: { readonly phase?: string };
  }[];
}

async function json<T>(kubeconfig: string, args: readonly string[]): Promise<T> {
  const result = await kubectl(kubeconfig, [...args, '-o', 'json']);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

async function apply(kubeconfig: string, object: unknown): Promise<void> {
  const path = join(scratch, `${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify(object));
  const result = await kubectl(kubeconfig, ['apply', '-f', path]);
  expect(result.code, result.stderr).toBe(0);
}

async function runningPod(kubeconfig: string, namespace: string, name: string): Promise<void> {
  const created = await kubectl(kubeconfig, [
    'run',
    name,
    '--image=registry.invalid/app:1',
    '-n',
    namespace,
  ]);
  expect(created.code, created.stderr).toBe(0);
  const waited = await kubectl(kubeconfig, [
    'wait',
    '--for=jsonpath={.status.phase}=Running',
    `pod/${name}`,
    '-n',
    namespace,
    '--timeout=60s',
  ]);
  expect(waited.code, waited.stderr).toBe(0);
}

describe('fake nodes (kwok) and kube-scheduler', () => {
  const namespace = useTestNamespace({ prefix: 'nodes' });

  it('has two Ready nodes', async () => {
    const nodes = await json<{
      items: {
        metadata: { name: string };
        status: { conditions: { type: string; status: string }[] };
      }[];
    }>(controlPlane().kubeconfigPath, ['get', 'nodes']);
    expect(nodes.items.map((node) => node.metadata.name).sort()).toEqual([
      'k-testenv-node-0',
      'k-testenv-node-1',
    ]);
    for (const node of nodes.items) {
      expect(node.status.conditions).toContainEqual(
        expect.objectContaining({ type: 'Ready', status: 'True' }),
      );
    }
  });

  it('renews a Lease per node, so the node-lifecycle controller keeps them Ready', async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    const leases = await waitFor('a lease per node', async () => {
      const list = await json<{
        items: { metadata: { name: string }; spec: { renewTime?: string } }[];
      }>(kubeconfig, ['get', 'leases', '-n', 'kube-node-lease']);
      return list.items.length === 2 ? list.items : undefined;
    });
    expect(leases.map((lease) => lease.metadata.name).sort()).toEqual([
      'k-testenv-node-0',
      'k-testenv-node-1',
    ]);
    expect(leases.every((lease) => lease.spec.renewTime)).toBe(true);
  });

  it('makes a 3-replica Deployment Available with its Pods Running on the fake nodes', async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    const created = await kubectl(kubeconfig, [
      'create',
      'deployment',
      'web',
      '--image=registry.invalid/web:1',
      '--replicas=3',
      '-n',
      namespace.name,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const available = await kubectl(kubeconfig, [
      'wait',
      '--for=condition=Available',
      'deployment/web',
      '-n',
      namespace.name,
      '--timeout=60s',
    ]);
    expect(available.code, available.stderr).toBe(0);
    const deployment = await json<{
      status: { readyReplicas?: number; availableReplicas?: number };
    }>(kubeconfig, ['get', 'deployment', 'web', '-n', namespace.name]);
    expect(deployment.status).toMatchObject({ readyReplicas: 3, availableReplicas: 3 });
    const pods = await json<PodList>(kubeconfig, ['get', 'pods', '-n', namespace.name]);
    expect(pods.items).toHaveLength(3);
    for (const pod of pods.items) {
      expect(pod.status.phase).toBe('Running');
      expect(pod.spec.nodeName).toMatch(/^k-testenv-node-[01]$/);
    }
  });

  it('completes a Job', async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    const created = await kubectl(kubeconfig, [
      'create',
      'job',
      'once',
      '--image=registry.invalid/job:1',
      '-n',
      namespace.name,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const complete = await kubectl(kubeconfig, [
      'wait',
      '--for=condition=Complete',
      'job/once',
      '-n',
      namespace.name,
      '--timeout=60s',
    ]);
    expect(complete.code, complete.stderr).toBe(0);
    const job = await json<{ status: { succeeded?: number } }>(kubeconfig, [
      'get',
      'job',
      'once',
      '-n',
      namespace.name,
    ]);
    expect(job.status.succeeded).toBe(1);
  });

  it('deletes a running Pod to the end (kwok acknowledges the graceful deletion)', async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    await runningPod(kubeconfig, namespace.name, 'doomed');
    const deleted = await kubectl(kubeconfig, [
      'delete',
      'pod',
      'doomed',
      '-n',
      namespace.name,
      '--wait=true',
      '--timeout=30s',
    ]);
    expect(deleted.code, deleted.stderr).toBe(0);
    const after = await kubectl(kubeconfig, ['get', 'pod', 'doomed', '-n', namespace.name]);
    expect(after.stderr).toContain('NotFound');
  });

  it('answers kubectl logs through kube-apiserver with what a kwok Logs object names', async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    await runningPod(kubeconfig, namespace.name, 'talker');
    // kwok serves a file in the CRI log format, as a kubelet would.
    const logFile = join(scratch, 'talker.log');
    await writeFile(
      logFile,
      '2026-01-01T00:00:00.000000000Z stdout F first line\n2026-01-01T00:00:01.000000000Z stdout F second line\n',
    );
    await apply(kubeconfig, {
      apiVersion: 'kwok.x-k8s.io/v1alpha1',
      kind: 'Logs',
      metadata: { name: 'talker', namespace: namespace.name },
      spec: { logs: [{ containers: ['talker'], logsFile: logFile }] },
    });
    const logs = await waitFor('the logs kwok serves', async () => {
      const result = await kubectl(kubeconfig, ['logs', 'talker', '-n', namespace.name]);
      return result.code === 0 && result.stdout.includes('second line') ? result.stdout : undefined;
    });
    expect(logs).toBe('first line\nsecond line\n');
  });

  it('runs kubectl exec through kube-apiserver on kwok as a ClusterExec object says', async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    await runningPod(kubeconfig, namespace.name, 'shell');
    const name = `exec-${namespace.name}`;
    // ClusterExec runs the command on this machine, in workDir, with these variables.
    await apply(kubeconfig, {
      apiVersion: 'kwok.x-k8s.io/v1alpha1',
      kind: 'ClusterExec',
      metadata: { name },
      spec: {
        selector: { matchNamespaces: [namespace.name] },
        execs: [{ local: { workDir: scratch, envs: [{ name: 'GREETING', value: 'hello' }] } }],
      },
    });
    try {
      const output = await waitFor('exec through kwok', async () => {
        const result = await kubectl(kubeconfig, [
          'exec',
          'shell',
          '-n',
          namespace.name,
          '--',
          'sh',
          '-c',
          'echo "$GREETING from $(pwd)"',
        ]);
        return result.code === 0 ? result.stdout : undefined;
      });
      expect(output).toBe(`hello from ${scratch}\n`);
    } finally {
      await kubectl(kubeconfig, ['delete', 'clusterexec', name]);
    }
  });
});
