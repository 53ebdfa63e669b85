import { ConnectionError, isForbidden, type ApiError } from '@k/rest';
import { kubeRequest, readAuditLog, type AuditRecord } from '@k/testenv';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import {
  caught,
  singleContextKubeconfig,
  startHttpConnectProxy,
  type KubeconfigCluster,
} from '@k/test-utils';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inferClientset } from '../src/index.js';
import { eventually, useUserClientsets } from './helpers.js';
import { execPod, finish, type Output } from './pod-streams-helpers.js';

// The WebSocket upgrade of exec goes through @k/transport's connection setup like every other
// request: no second auth path. Each test writes a kubeconfig with one way of authenticating (or
// of getting there), builds a clientset from it as an application does (inferClientset) and runs
// an exec through the real kube-apiserver to kwok; the audit log says who the server saw.
const namespace = useTestNamespace({ prefix: 'clientset-stream-auth' });
const scratch = await mkdtemp(join(tmpdir(), 'clientset-stream-auth-'));
const users = useUserClientsets();

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function cluster(extra: Partial<KubeconfigCluster> = {}): KubeconfigCluster {
  return { server: controlPlane().server, caPem: controlPlane().caPem, ...extra };
}

/** kubeconfigWith writes a kubeconfig whose only user is `user` (a kubeconfig `user` stanza). */
async function kubeconfigWith(
  name: string,
  user: Record<string, unknown>,
  where: KubeconfigCluster = cluster(),
): Promise<string> {
  const path = join(scratch, `${namespace.name}-${name}.kubeconfig`);
  await writeFile(path, singleContextKubeconfig(where, name, user), { mode: 0o600 });
  return path;
}

/** shellPod makes pod `shell` in the test namespace, whose exec runs commands on this machine. */
function shellPod(): Promise<void> {
  return execPod(users.admin, namespace.name, 'shell', { workDir: scratch });
}

/** execWith runs `echo <text>` in pod `shell` with a clientset made from `kubeconfig`. */
async function execWith(kubeconfig: string, text: string): Promise<Output> {
  const cs = await inferClientset({ kubeconfig, throttle: 'off' });
  try {
    const session = await cs.coreV1.pods(namespace.name).exec('shell', {
      command: ['echo', text],
    });
    return await finish(session);
  } finally {
    await cs.close();
  }
}

/** execRecords are the audit records of the execs of pod `shell` in the test namespace. */
async function execRecords(): Promise<AuditRecord[]> {
  const records = await readAuditLog(controlPlane().auditLogPath, {
    namespace: namespace.name,
    name: 'shell',
  });
  return records.filter((record) => record.subresource === 'exec');
}

/** asAdmin sends one request as admin (the RBAC objects and tokens the tests need). */
async function asAdmin(method: string, path: string, body?: unknown): Promise<unknown> {
  const { server, caPem, users: planeUsers } = controlPlane();
  const response = await kubeRequest({
    server,
    caPem,
    credentials: planeUsers.admin,
    method,
    path,
    ...(body === undefined ? {} : { body }),
  });
  expect(response.status, response.body).toBeLessThan(300);
  return JSON.parse(response.body) as unknown;
}

/** allowExec lets `subject` exec into the test namespace's pods (a Role and its RoleBinding). */
async function allowExec(subject: { kind: string; name: string; namespace?: string }) {
  const base = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace.name}`;
  await asAdmin('POST', `${base}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'exec' },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      // A WebSocket upgrade of exec needs `create` as well as `get` since 1.35.
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['get', 'create'] },
    ],
  });
  await asAdmin('POST', `${base}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'exec' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'exec' },
    subjects: [
      subject.kind === 'ServiceAccount'
        ? subject
        : { apiGroup: 'rbac.authorization.k8s.io', kind: subject.kind, name: subject.name },
    ],
  });
}

describe('exec over a WebSocket with every way the transport authenticates (real API server)', () => {
  it('runs an exec credential plugin (a real child process) and replays the upgrade after a 401 with its next token', async () => {
    await shellPod();
    // The plugin: a Node program the transport runs as kubectl would. Its first run gives a
    // token the server does not know; once the server answers the upgrade with 401, the
    // transport runs it again and replays the upgrade with the token of its second run.
    const runs = join(scratch, `${namespace.name}-plugin-runs`);
    const plugin = join(scratch, `${namespace.name}-plugin.mjs`);
    await writeFile(
      plugin,
      [
        '#!/usr/bin/env node',
        "import { appendFileSync, readFileSync } from 'node:fs';",
        'const runs = process.env.K_PLUGIN_RUNS;',
        "let count = 0; try { count = readFileSync(runs, 'utf8').length; } catch {}",
        "appendFileSync(runs, 'x');",
        "const token = count === 0 ? 'not-a-token-the-server-knows' : process.env.K_PLUGIN_TOKEN;",
        "const apiVersion = 'client.authentication.k8s.io/v1';",
        "process.stdout.write(JSON.stringify({ apiVersion, kind: 'ExecCredential', status: { token } }));",
        '',
      ].join('\n'),
    );
    await chmod(plugin, 0o755);
    const kubeconfig = await kubeconfigWith('plugin-user', {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: plugin,
        env: [
          { name: 'K_PLUGIN_RUNS', value: runs },
          { name: 'K_PLUGIN_TOKEN', value: controlPlane().users.tester.token },
        ],
        interactiveMode: 'Never',
      },
    });
    expect(await execWith(kubeconfig, 'from the plugin')).toMatchObject({
      stdout: 'from the plugin\n',
      result: { exitCode: 0 },
    });
    expect(await readFile(runs, 'utf8')).toBe('xx');
    await eventually(async () => {
      const records = await execRecords();
      expect(records.map((record) => [record.user, record.code])).toContainEqual(['tester', 101]);
      // The first upgrade, with the plugin's first token, was refused before it was replayed.
      expect(records.map((record) => record.code)).toContain(401);
    });
  });

  it('sends the id-token of an OIDC auth-provider (a service account token, which the server accepts)', async () => {
    await shellPod();
    // The control plane runs no OIDC issuer; a token it does accept stands in for the id-token:
    // a service account token (a JWT with an `exp`, as the provider checks) from TokenRequest.
    await asAdmin('POST', `/api/v1/namespaces/${namespace.name}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'streamer' },
    });
    const request = (await asAdmin(
      'POST',
      `/api/v1/namespaces/${namespace.name}/serviceaccounts/streamer/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      },
    )) as { status: { token: string } };
    await allowExec({ kind: 'ServiceAccount', name: 'streamer', namespace: namespace.name });
    const kubeconfig = await kubeconfigWith('oidc-user', {
      'auth-provider': {
        name: 'oidc',
        config: {
          // Never contacted: the id-token is valid, so nothing is refreshed.
          'idp-issuer-url': 'https://127.0.0.1:1',
          'client-id': 'k-stream-auth',
          'id-token': request.status.token,
        },
      },
    });
    const output = await eventually(async () => {
      const attempt = await execWith(kubeconfig, 'from oidc');
      expect(attempt.error).toBeUndefined();
      return attempt;
    });
    expect(output).toMatchObject({ stdout: 'from oidc\n', result: { exitCode: 0 } });
    const account = `system:serviceaccount:${namespace.name}:streamer`;
    await eventually(async () =>
      expect((await execRecords()).map((record) => [record.user, record.code])).toContainEqual([
        account,
        101,
      ]),
    );
  });

  it('impersonates with the kubeconfig’s as and as-groups: alice as tester only once RBAC lets her', async () => {
    await shellPod();
    const group = `${namespace.name}:streamers`;
    const aliceAsTester = await kubeconfigWith('alice-as-tester', {
      'client-certificate-data': Buffer.from(controlPlane().users.alice.certPem).toString('base64'),
      'client-key-data': Buffer.from(controlPlane().users.alice.keyPem).toString('base64'),
      as: 'tester',
      'as-groups': [group],
    });
    const refused = await caught(execWith(aliceAsTester, 'not yet'));
    expect(isForbidden(refused)).toBe(true);
    // 1.37 names the constrained-impersonation verb it checked first (impersonate-on:…).
    expect((refused as ApiError).message).toContain('User "alice" cannot impersonate');
    const name = `k-stream-auth:${namespace.name}`;
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await asAdmin('POST', `${rbac}/clusterroles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [
        {
          apiGroups: [''],
          resources: ['users'],
          verbs: ['impersonate'],
          resourceNames: ['tester'],
        },
        { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: [group] },
      ],
    });
    await asAdmin('POST', `${rbac}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    });
    try {
      const output = await eventually(async () => {
        const attempt = await execWith(aliceAsTester, 'as tester');
        expect(attempt.error).toBeUndefined();
        return attempt;
      });
      expect(output).toMatchObject({ stdout: 'as tester\n', result: { exitCode: 0 } });
      await eventually(async () => {
        const upgraded = (await execRecords()).filter(
          (record) => record.code === 101 && record.user === 'alice',
        );
        expect(upgraded).toHaveLength(1);
        expect(upgraded[0]).toMatchObject({ user: 'alice', impersonatedUser: 'tester' });
        expect(upgraded[0]!.impersonatedGroups).toContain(group);
      });
    } finally {
      await asAdmin('DELETE', `${rbac}/clusterrolebindings/${name}`);
      await asAdmin('DELETE', `${rbac}/clusterroles/${name}`);
    }
  });

  it('presents the client certificate of the kubeconfig: alice, once a RoleBinding lets her exec', async () => {
    await shellPod();
    const alice = await kubeconfigWith('alice', {
      'client-certificate-data': Buffer.from(controlPlane().users.alice.certPem).toString('base64'),
      'client-key-data': Buffer.from(controlPlane().users.alice.keyPem).toString('base64'),
    });
    const refused = await caught(execWith(alice, 'not yet'));
    expect(isForbidden(refused)).toBe(true);
    expect((refused as ApiError).message).toContain('User "alice"');
    await allowExec({ kind: 'User', name: 'alice' });
    const output = await eventually(async () => {
      const attempt = await execWith(alice, 'as alice');
      expect(attempt.error).toBeUndefined();
      return attempt;
    });
    expect(output).toMatchObject({ stdout: 'as alice\n', result: { exitCode: 0 } });
    await eventually(async () =>
      expect((await execRecords()).map((record) => [record.user, record.code])).toContainEqual([
        'alice',
        101,
      ]),
    );
  });

  it('tunnels through the HTTP CONNECT proxy of the kubeconfig’s proxy-url (a real proxy written for the test)', async () => {
    await shellPod();
    // startHttpConnectProxy is a small node:net CONNECT proxy that records every tunnel.
    const proxy = await startHttpConnectProxy();
    const tester = { token: controlPlane().users.tester.token };
    const kubeconfig = await kubeconfigWith(
      'tester-via-proxy',
      tester,
      cluster({ proxyUrl: proxy.url }),
    );
    try {
      expect(await execWith(kubeconfig, 'through the proxy')).toMatchObject({
        stdout: 'through the proxy\n',
        result: { exitCode: 0 },
      });
      const apiServer = `127.0.0.1:${new URL(controlPlane().server).port}`;
      expect(proxy.tunnels).toEqual([apiServer]);
    } finally {
      await proxy.close();
    }
    // With the proxy gone, the same kubeconfig cannot reach the server: nothing went around it.
    expect(await caught(execWith(kubeconfig, 'no proxy'))).toBeInstanceOf(ConnectionError);
  });
});
