import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { isForbidden, isNotFound } from '@k/rest';
import { controlPlane } from '@k/testenv/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectEnvironment,
  type Environment,
  type TestNamespace,
  type TestUser,
} from '../src/index.js';

const execFileAsync = promisify(execFile);

// Against the run's shared plane.
let env: Environment;
let namespace: TestNamespace;
let other: TestNamespace;
beforeAll(async () => {
  env = connectEnvironment(controlPlane().kubeconfigPath);
  [namespace, other] = await Promise.all([
    env.createTestNamespace({ prefix: 'users' }),
    env.createTestNamespace({ prefix: 'users-other' }),
  ]);
});
afterAll(async () => {
  await Promise.all([namespace.delete({ wait: false }), other.delete({ wait: false })]);
  await env.close();
});

const configMap = (name: string) => ({
  apiVersion: 'v1' as const,
  kind: 'ConfigMap' as const,
  metadata: { name },
  data: { a: '1' },
});

async function whoami(user: TestUser): Promise<string> {
  const { stdout } = await execFileAsync('kubectl', [
    'auth',
    'whoami',
    `--kubeconfig=${user.kubeconfigPath}`,
    '-o',
    'jsonpath={.status.userInfo.username}',
  ]);
  return stdout;
}

describe('the built-in users', () => {
  it('admin lists the nodes', async () => {
    const nodes = await (await env.admin.clientset()).coreV1.nodes().list();
    expect(nodes.items.map((node) => node.metadata?.name).sort()).toEqual([...env.nodes].sort());
  });

  it('unprivileged is alice, refused with a 403 that names her', async () => {
    const error = await (
      await env.unprivileged.clientset()
    ).coreV1
      .configMaps(namespace.name)
      .list()
      .catch((caught: unknown) => caught);
    expect(isForbidden(error)).toBe(true);
    expect((error as Error).message).toContain('User "alice"');
  });

  it('editor creates ConfigMaps but not Namespaces', async () => {
    const editor = await env.editor.clientset();
    await editor.coreV1.configMaps(namespace.name).create(configMap('by-editor'));
    const error = await editor.coreV1
      .namespaces()
      .create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: `nope-${randomBytes(4).toString('hex')}` },
      })
      .catch((caught: unknown) => caught);
    expect(isForbidden(error)).toBe(true);
  });
});

describe('user()', () => {
  it('with rules in a namespace may do exactly that, there', async () => {
    const reader = await env.user({
      namespace: namespace.name,
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    });
    expect(reader.name).toMatch(/^k-envtest-user-[0-9a-f]{8}$/);
    const clientset = await reader.clientset();
    await expect(clientset.coreV1.configMaps(namespace.name).list()).resolves.toMatchObject({
      items: expect.any(Array) as unknown,
    });
    const refusals = await Promise.all(
      [
        clientset.coreV1.configMaps(other.name).list(),
        clientset.coreV1.configMaps(namespace.name).create(configMap('by-reader')),
        clientset.coreV1.secrets(namespace.name).list(),
      ].map((attempt) =>
        attempt.then(
          () => undefined,
          (caught: unknown) => caught,
        ),
      ),
    );
    expect(refusals.map(isForbidden)).toEqual([true, true, true]);
  });

  it('with a ClusterRole bound cluster-wide reads everywhere and writes nowhere', async () => {
    const viewer = await env.user({
      name: 'viewer',
      groups: ['team:viewers'],
      clusterRole: 'view',
    });
    expect(viewer).toMatchObject({ name: 'viewer', groups: ['team:viewers'] });
    const clientset = await viewer.clientset();
    await clientset.coreV1.configMaps(namespace.name).list();
    await clientset.coreV1.configMaps(other.name).list();
    const error = await clientset.coreV1
      .configMaps(namespace.name)
      .create(configMap('by-viewer'))
      .catch((caught: unknown) => caught);
    expect(isForbidden(error)).toBe(true);
    const review = await clientset.authenticationV1.selfSubjectReviews().create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    expect(review.status?.userInfo?.groups).toEqual(['team:viewers', 'system:authenticated']);
  });

  it('binds an existing Role in its namespace', async () => {
    const admin = await env.admin.clientset();
    await admin.rbacV1.roles(namespace.name).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'secret-reader' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }],
    });
    const user = await env.user({ namespace: namespace.name, role: 'secret-reader' });
    await (await user.clientset()).coreV1.secrets(namespace.name).list();
  });
});

describe('serviceAccountUser()', () => {
  it('is the ServiceAccount, made when missing, as kube-apiserver authenticates it', async () => {
    const user = await env.serviceAccountUser({ namespace: namespace.name, name: 'operator' });
    expect(user.name).toBe(`system:serviceaccount:${namespace.name}:operator`);
    const clientset = await user.clientset();
    const review = await clientset.authenticationV1.selfSubjectReviews().create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    expect(review.status?.userInfo?.username).toBe(
      `system:serviceaccount:${namespace.name}:operator`,
    );
    expect(review.status?.userInfo?.groups).toContain(`system:serviceaccounts:${namespace.name}`);
    // A second user of the same ServiceAccount reuses it.
    const again = await env.serviceAccountUser({ namespace: namespace.name, name: 'operator' });
    expect(again.name).toBe(user.name);
    expect('token' in again.credentials && 'token' in user.credentials).toBe(true);
  });
});

describe('every user', () => {
  it('has a kubeconfig kubectl accepts, and its requests are audited under its name', async () => {
    const userAgent = `users-e2e/${randomBytes(4).toString('hex')}`;
    const made = await env.user({ clusterRole: 'view', namespace: namespace.name });
    const account = await env.serviceAccountUser({ namespace: namespace.name, name: 'audited' });
    const users: [TestUser, string][] = [
      [env.admin, 'admin'],
      [env.unprivileged, 'alice'],
      [env.editor, 'tester'],
      [made, made.name],
      [account, `system:serviceaccount:${namespace.name}:audited`],
    ];
    const mark = await env.audit.mark();
    for (const [user, name] of users) {
      expect(await whoami(user)).toBe(name);
      await (
        await user.clientset({ userAgent })
      ).coreV1
        .configMaps(namespace.name)
        .list()
        .catch(() => undefined);
    }
    const records = await env.audit.waitFor({ since: mark, userAgent }, users.length);
    expect(records.map((record) => record.user)).toEqual(users.map(([, name]) => name));
    expect(records.map((record) => record.code)).toEqual([200, 403, 200, 200, 403]);
  });
});

describe('close()', () => {
  it('closes the clientsets the handle made and deletes the cluster-scoped RBAC of its users', async () => {
    const handle = connectEnvironment(controlPlane().kubeconfigPath);
    const user = await handle.user({
      rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }],
    });
    const clientset = await user.clientset();
    await clientset.coreV1.namespaces().get(namespace.name);
    const admin = await env.admin.clientset();
    const bindings = (await admin.rbacV1.clusterRoleBindings().list()).items.filter((binding) =>
      binding.subjects?.some((subject) => subject.name === user.name),
    );
    expect(bindings).toHaveLength(1);
    const name = bindings[0]!.metadata!.name!;
    // A default user name is unique already, and names its RBAC objects too.
    expect(name).toBe(user.name);
    await admin.rbacV1.clusterRoles().get(name);

    await handle.close();
    await expect(clientset.coreV1.namespaces().get(namespace.name)).rejects.toThrow();
    const gone = await Promise.all(
      [admin.rbacV1.clusterRoleBindings().get(name), admin.rbacV1.clusterRoles().get(name)].map(
        (attempt) =>
          attempt.then(
            () => undefined,
            (caught: unknown) => caught,
          ),
      ),
    );
    expect(gone.map(isNotFound)).toEqual([true, true]);
    // A second close has nothing left to do.
    await handle.close();
  });
});

describe('errors', () => {
  it('never carry a token or a private key', async () => {
    const account = await env.serviceAccountUser({ namespace: namespace.name, name: 'secretive' });
    const made = await env.user();
    const secret = (user: TestUser) =>
      'token' in user.credentials ? user.credentials.token : user.credentials.keyPem;
    const secrets = [env.editor, account, made, env.admin, env.unprivileged].map(secret);
    // Each secret's distinctive part (a PEM's header is no secret), at least 16 characters.
    const needles = secrets.map((secret) => {
      const body = secret.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
      return body.slice(4, 44);
    });
    expect(needles.every((needle) => needle.length >= 16)).toBe(true);
    const errors = await Promise.all(
      [
        env.serviceAccountUser({
          namespace: `missing-${randomBytes(4).toString('hex')}`,
          name: 'x',
        }),
        env.serviceAccountUser({
          namespace: namespace.name,
          name: 'secretive',
          expirationSeconds: 1,
        }),
        env.user({ clusterRole: `missing-${randomBytes(4).toString('hex')}` }),
        account.clientset().then((clientset) => clientset.coreV1.secrets(other.name).list()),
        made.clientset().then((clientset) => clientset.coreV1.secrets(other.name).list()),
        env.editor.clientset().then((clientset) => clientset.coreV1.nodes().delete('none')),
      ].map((attempt) =>
        attempt.then(
          () => undefined,
          (caught: unknown) => caught,
        ),
      ),
    );
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error);
      const text = [];
      for (let current: unknown = error; current instanceof Error; current = current.cause) {
        text.push(current.message, current.stack ?? '', JSON.stringify(current));
      }
      for (const needle of needles) expect(text.join('\n')).not.toContain(needle);
    }
    expect((errors[0] as Error).message).toMatch(
      /^creating ServiceAccount missing-[0-9a-f]{8}\/x failed: /,
    );
    expect((errors[2] as { code?: string }).code).toBe('ERR_ENVTEST_PROVISION_FAILED');
  });
});

describe('audit', () => {
  it('from a mark on, gives exactly the requests of this test (by its user agent), writes apart', async () => {
    const userAgent = `audit-e2e/${randomBytes(4).toString('hex')}`;
    const mark = await env.audit.mark();
    const clientset = await env.editor.clientset({ userAgent });
    const configMaps = clientset.coreV1.configMaps(namespace.name);
    await configMaps.create(configMap('audited'));
    await configMaps.get('audited');
    await configMaps.list();
    await configMaps.patch('audited', 'merge', { data: { b: '2' } });
    await configMaps.delete('audited');
    const records = await env.audit.waitFor({ since: mark, userAgent }, 5);
    expect(records.map((record) => [record.verb, record.name, record.code])).toEqual([
      ['create', 'audited', 201],
      ['get', 'audited', 200],
      ['list', undefined, 200],
      ['patch', 'audited', 200],
      ['delete', 'audited', 200],
    ]);
    expect(
      records.every((record) => record.user === 'tester' && record.resource === 'configmaps'),
    ).toBe(true);
    const writes = await env.audit.records({ since: mark, userAgent, writes: true });
    expect(writes.map((record) => record.verb)).toEqual(['create', 'patch', 'delete']);
    // Nothing of this test before the mark.
    const later = await env.audit.mark();
    expect(await env.audit.records({ since: later, userAgent })).toEqual([]);
  });

  it('waitFor returns once the count is reached, after settling, with any surplus', async () => {
    const userAgent = `audit-e2e/${randomBytes(4).toString('hex')}`;
    const mark = await env.audit.mark();
    const clientset = await env.admin.clientset({ userAgent });
    await Promise.all([1, 2, 3].map(() => clientset.coreV1.namespaces().get(namespace.name)));
    const records = await env.audit.waitFor({ since: mark, userAgent, verb: 'get' }, 1);
    expect(records).toHaveLength(3);
  });
});
