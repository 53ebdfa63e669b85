import { describe, expect, inject, it } from 'vitest';
import { kubeRequest } from '../src/kube-request.js';
import { KUBECONFIG_ENV } from '../src/test-namespace.js';
import { controlPlane, useTestNamespace } from '../src/vitest.js';
import { isAlive, kubectl, listeningAddresses, waitFor } from './helpers.js';
import { readControlPlaneState } from '../src/connection.js';

// These run against the control plane the global setup started, with the real kubectl.
describe('the shared control plane, seen through kubectl', () => {
  const namespace = useTestNamespace({ prefix: 'kubectl' });

  it('is provided to tests through inject and K_TESTENV_KUBECONFIG alike', () => {
    const provided = inject('kTestenv');
    expect(provided.kubeconfigPath).toBe(process.env[KUBECONFIG_ENV]);
    expect(controlPlane().server).toBe(provided.server);
    expect(provided.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('lists the four system namespaces', async () => {
    const result = await kubectl(controlPlane().kubeconfigPath, [
      'get',
      'namespaces',
      '-o',
      'name',
    ]);
    expect(result.code).toBe(0);
    const names = result.stdout.trim().split('\n');
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      expect(names).toContain(`namespace/${name}`);
    }
  });

  it('allocates ClusterIPs from a /16, beyond the first 254 addresses', async () => {
    const { kubeconfigPath } = controlPlane();
    const cidrs = await kubectl(kubeconfigPath, [
      'get',
      'servicecidrs',
      'kubernetes',
      '-o',
      'jsonpath={.spec.cidrs}',
    ]);
    expect(cidrs.stdout).toBe('["10.0.0.0/16"]');
    const created = await kubectl(kubeconfigPath, [
      'create',
      'service',
      'clusterip',
      'far',
      '--tcp=80',
      '--clusterip=10.0.200.10',
      `--namespace=${namespace.name}`,
      '--dry-run=server',
      '-o',
      'jsonpath={.spec.clusterIP}',
    ]);
    expect(created).toMatchObject({ code: 0, stdout: '10.0.200.10' });
  });

  it('reports the pinned release as its version', async () => {
    const { server, caPem, users } = controlPlane();
    const response = await kubeRequest({
      server,
      path: '/version',
      caPem,
      credentials: users.admin,
    });
    expect(JSON.parse(response.body)).toMatchObject({
      gitVersion: 'v1.37.2',
      major: '1',
      minor: '37',
    });
  });

  it('turns a Deployment into a ReplicaSet and Pods on the fake nodes, and garbage-collects them', async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    const created = await kubectl(kubeconfig, [
      'create',
      'deployment',
      'web',
      '--image=registry.invalid/web:1',
      '--replicas=2',
      '-n',
      namespace.name,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const pods = await waitFor('two running pods', async () => {
      const result = await kubectl(kubeconfig, ['get', 'pods', '-n', namespace.name, '-o', 'json']);
      const items = (
        JSON.parse(result.stdout) as {
          items: {
            status: { phase: string };
            spec: { nodeName?: string };
            metadata: { ownerReferences: { kind: string }[] };
          }[];
        }
      ).items;
      return items.length === 2 && items.every((pod) => pod.status.phase === 'Running')
        ? items
        : undefined;
    });
    expect(pods.every((pod) => pod.spec.nodeName?.startsWith('k-testenv-node-'))).toBe(true);
    expect(pods.every((pod) => pod.metadata.ownerReferences[0]?.kind === 'ReplicaSet')).toBe(true);
    const replicaSets = await kubectl(kubeconfig, [
      'get',
      'replicasets',
      '-n',
      namespace.name,
      '-o',
      'name',
    ]);
    expect(replicaSets.stdout.trim().split('\n')).toHaveLength(1);

    const deleted = await kubectl(kubeconfig, [
      'delete',
      'deployment',
      'web',
      '-n',
      namespace.name,
      '--wait=false',
    ]);
    expect(deleted.code, deleted.stderr).toBe(0);
    await waitFor('the garbage collector to remove the ReplicaSet and Pods', async () => {
      const result = await kubectl(kubeconfig, [
        'get',
        'replicasets,pods',
        '-n',
        namespace.name,
        '-o',
        'name',
      ]);
      return result.code === 0 && result.stdout.trim() === '' ? true : undefined;
    });
  });

  it('forbids alice everything (403 Forbidden)', async () => {
    const { kubeconfigPath, server, caPem, users } = controlPlane();
    const result = await kubectl(kubeconfigPath, ['get', 'pods', '-n', namespace.name], 'alice');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Forbidden');
    expect(result.stderr).toContain('User "alice" cannot list resource "pods"');
    const response = await kubeRequest({
      server,
      caPem,
      credentials: users.alice,
      path: `/api/v1/namespaces/${namespace.name}/configmaps`,
    });
    expect(response.status).toBe(403);
  });

  it('lets tester (token, ClusterRole edit) create a ConfigMap but not a Namespace', async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    const created = await kubectl(
      kubeconfig,
      ['create', 'configmap', 'settings', '--from-literal=mode=test', '-n', namespace.name],
      'tester',
    );
    expect(created.code, created.stderr).toBe(0);
    const read = await kubectl(
      kubeconfig,
      ['get', 'configmap', 'settings', '-n', namespace.name, '-o', 'jsonpath={.data.mode}'],
      'tester',
    );
    expect(read.stdout).toBe('test');
    const namespaceAttempt = await kubectl(
      kubeconfig,
      ['create', 'namespace', 'tester-may-not'],
      'tester',
    );
    expect(namespaceAttempt.stderr).toContain('Forbidden');
    const whoami = await kubectl(
      kubeconfig,
      ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'],
      'tester',
    );
    expect(whoami.stdout).toBe('tester');
  });

  it('deletes a namespace with content (namespace controller runs)', async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    const name = `${namespace.name}-gone`;
    expect((await kubectl(kubeconfig, ['create', 'namespace', name])).code).toBe(0);
    expect((await kubectl(kubeconfig, ['create', 'configmap', 'c', '-n', name])).code).toBe(0);
    expect((await kubectl(kubeconfig, ['delete', 'namespace', name, '--wait=false'])).code).toBe(0);
    await waitFor('the namespace to be gone', async () => {
      const result = await kubectl(kubeconfig, ['get', 'namespace', name]);
      return result.stderr.includes('NotFound') ? true : undefined;
    });
  });

  it('binds every process to 127.0.0.1 only', () => {
    const state = readControlPlaneState(controlPlane().kubeconfigPath);
    expect(state.processes.map((child) => child.name)).toEqual([
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      'kwok',
    ]);
    for (const child of state.processes) {
      expect(isAlive(child.pid)).toBe(true);
      const addresses = listeningAddresses(child.pid);
      expect(addresses.length, child.name).toBeGreaterThan(0);
      for (const address of addresses) expect(address, child.name).toMatch(/^127\.0\.0\.1:\d+$/);
    }
    expect(listeningAddresses(state.processes[0]!.pid)).toHaveLength(2);
  });
});
