import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  ignoreNotFound,
  parseManifests,
  type Clientset,
  type UnstructuredObject,
} from '@k/clientset';
import {
  MODULE_KINDS,
  startNodeProgram,
  type ModuleKind,
  type RunningNodeProgram,
} from '@k/test-utils';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createTeamNamespacesClient,
  type TeamNamespace,
} from '../examples/generated/team-namespace-v1.js';
import { clientsetFor, eventually, jsonLogLines, permissionOf, transpileFor } from './helpers.js';

// examples/team-namespaces.ts and its k-gen'd client as a user's build emits them (plain .mjs
// and .cjs), importing the built packages by name, run by `node` against the real control plane
// under the ServiceAccount of examples/team-namespaces-rbac.yaml (a TokenRequest token). The
// garbage collector of kube-controller-manager, which the test control plane runs, deletes a
// TeamNamespace's Namespace.
const EXAMPLES = new URL('../examples/', import.meta.url);
const GENERATED = './generated/team-namespace-v1.js';
const FIELD_MANAGER = 'team-namespaces-e2e';
const namespace = useTestNamespace({ prefix: 'runtime-team-namespaces' });
const running: RunningNodeProgram[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
  await cs.applyManifests(await readFile(new URL('team-namespaces-crd.yaml', EXAMPLES), 'utf8'), {
    fieldManager: FIELD_MANAGER,
  });
  await untilCollectedByTheGarbageCollector();
});

/**
 * untilCollectedByTheGarbageCollector waits until kube-controller-manager's garbage collector
 * deletes what a TeamNamespace owned: it learns a new CRD's kind only at its next discovery
 * resync (every 30 s), and until then collects nothing whose owner is of that kind. Waited for
 * once here, so the test's own wait is for the operator, not for that resync.
 */
async function untilCollectedByTheGarbageCollector(): Promise<void> {
  const teams = createTeamNamespacesClient(cs.rest);
  const name = `gc-probe-${randomUUID().slice(0, 8)}`;
  const owner = await teams.create({
    apiVersion: 'k.example/v1',
    kind: 'TeamNamespace',
    metadata: { name },
    spec: { owners: ['nobody'] },
  });
  await cs.rbacV1.clusterRoles().create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name,
      ownerReferences: [
        {
          apiVersion: 'k.example/v1',
          kind: 'TeamNamespace',
          name,
          uid: owner.metadata?.uid ?? '',
          controller: true,
        },
      ],
    },
  });
  await teams.delete(name);
  await eventually(
    async () => expect(await ignoreNotFound(cs.rbacV1.clusterRoles().get(name))).toBeUndefined(),
    110_000,
    500,
  );
}

afterEach(async () => {
  for (const program of running.splice(0)) program.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

afterAll(async () => {
  if (!cs) return;
  // The CRD stays: tools/workspace's installed-examples test uses it at the same time (deleting
  // it would delete that test's TeamNamespaces), and the control plane goes with the run.
  await cs.close();
});

/** compile turns a module of examples/ into what a user's build emits for `kind`. */
async function compile(file: string, kind: ModuleKind): Promise<string> {
  const source = await readFile(new URL(file, EXAMPLES), 'utf8');
  return transpileFor(source, kind).replace(
    GENERATED,
    `./team-namespace-v1.${kind === 'esm' ? 'mjs' : 'cjs'}`,
  );
}

/**
 * installRbac applies examples/team-namespaces-rbac.yaml moved into the test's namespace (the
 * cluster-wide objects renamed after it) and returns the ServiceAccount's user name.
 */
async function installRbac(): Promise<string> {
  const clusterName = `team-namespaces-${namespace.name}`;
  const text = await readFile(new URL('team-namespaces-rbac.yaml', EXAMPLES), 'utf8');
  const objects = (await parseManifests(text)) as (UnstructuredObject & {
    roleRef?: { name: string };
    subjects?: { namespace: string }[];
  })[];
  const moved = objects.filter((object) => object.kind !== 'Namespace');
  for (const object of moved) {
    if (object.kind === 'ClusterRole' || object.kind === 'ClusterRoleBinding') {
      object.metadata!.name = clusterName;
    } else {
      object.metadata!.namespace = namespace.name;
    }
    if (object.kind === 'ClusterRoleBinding') object.roleRef!.name = clusterName;
    for (const subject of object.subjects ?? []) subject.namespace = namespace.name;
  }
  await cs.applyManifests(moved.map((object) => JSON.stringify(object)).join('\n---\n'), {
    fieldManager: FIELD_MANAGER,
  });
  cleanups.push(async () => {
    await ignoreNotFound(cs.rbacV1.clusterRoleBindings().delete(clusterName));
    await ignoreNotFound(cs.rbacV1.clusterRoles().delete(clusterName));
  });
  return `system:serviceaccount:${namespace.name}:team-namespaces`;
}

/** serviceAccountKubeconfig is a kubeconfig with a TokenRequest token of the ServiceAccount. */
async function serviceAccountKubeconfig(): Promise<string> {
  const serviceAccount = await environment().serviceAccountUser({
    namespace: namespace.name,
    name: 'team-namespaces',
  });
  return readFile(serviceAccount.kubeconfigPath, 'utf8');
}

async function startExample(kind: ModuleKind): Promise<RunningNodeProgram> {
  const extension = kind === 'esm' ? 'mjs' : 'cjs';
  const program = await startNodeProgram(
    {
      // Nothing imported by the wrapper itself: listed so the build is checked for freshness.
      imports: { '@k/clientset': [], '@k/runtime': [] },
      main:
        kind === 'esm'
          ? `await import('./team-namespaces.mjs');`
          : `require('./team-namespaces.cjs');`,
      files: {
        [`team-namespaces.${extension}`]: await compile('team-namespaces.ts', kind),
        [`team-namespace-v1.${extension}`]: await compile(GENERATED.replace(/\.js$/, '.ts'), kind),
        kubeconfig: await serviceAccountKubeconfig(),
      },
    },
    kind,
    {
      args: [
        '--kubeconfig=kubeconfig',
        `--lease-namespace=${namespace.name}`,
        '--port=0',
        '--metrics-port=0',
      ],
      timeoutMs: 150_000,
    },
  );
  running.push(program);
  return program;
}

function ready(team: TeamNamespace) {
  return team.status?.conditions?.find((condition) => condition.type === 'Ready');
}

describe.each(MODULE_KINDS)('examples/team-namespaces.ts (%s)', (kind) => {
  it('makes a Namespace and RoleBinding per TeamNamespace under its RBAC, puts a deleted or changed RoleBinding back, never adopts a Namespace, and the garbage collector deletes the Namespace with its TeamNamespace; SIGTERM exits 0', async () => {
    const user = await installRbac();
    const teams = createTeamNamespacesClient(cs.rest);
    const name = `tns-${kind}-${randomUUID().slice(0, 8)}`;
    const taken = `${name}-taken`;
    cleanups.push(async () => {
      await ignoreNotFound(teams.delete(name));
      await ignoreNotFound(teams.delete(taken));
      await ignoreNotFound(cs.coreV1.namespaces().delete(taken));
    });
    const program = await startExample(kind);
    const [, probes] = await program.waitForStdout(/listening probes (\S+)/, 20_000);
    await eventually(async () => expect((await fetch(`${probes}/readyz`)).status).toBe(200));

    const team = await teams.create({
      apiVersion: 'k.example/v1',
      kind: 'TeamNamespace',
      metadata: { name },
      spec: { owners: ['alice', 'bob'] },
    });
    const bindings = cs.rbacV1.roleBindings(name);
    const first = await eventually(async () => {
      const made = await cs.coreV1.namespaces().get(name);
      expect(made.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'k.example/v1',
          kind: 'TeamNamespace',
          name,
          uid: team.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      const binding = await bindings.get('team-owners');
      expect(binding.roleRef).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'edit',
      });
      expect(binding.subjects?.map((subject) => subject.name)).toEqual(['alice', 'bob']);
      expect(ready(await teams.get(name))).toMatchObject({
        status: 'True',
        reason: 'Provisioned',
        observedGeneration: 1,
      });
      return binding;
    });

    // Someone deletes the RoleBinding: it is put back.
    await bindings.delete('team-owners');
    await eventually(async () => {
      const again = await bindings.get('team-owners');
      expect(again.metadata?.uid).not.toBe(first.metadata?.uid);
      expect(again.subjects?.map((subject) => subject.name)).toEqual(['alice', 'bob']);
    });
    // The owners change: the RoleBinding follows. Someone changes it: it is put back.
    await teams.patch(name, 'merge', { spec: { owners: ['carol'] } });
    await eventually(async () => {
      expect((await bindings.get('team-owners')).subjects?.map((subject) => subject.name)).toEqual([
        'carol',
      ]);
      expect(ready(await teams.get(name))).toMatchObject({ status: 'True', observedGeneration: 2 });
    });
    await bindings.patch(
      'team-owners',
      'merge',
      { subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'mallory' }] },
      { fieldManager: 'someone' },
    );
    await eventually(async () =>
      expect((await bindings.get('team-owners')).subjects?.map((subject) => subject.name)).toEqual([
        'carol',
      ]),
    );

    // A Namespace someone else made is reported, never adopted.
    await cs.coreV1
      .namespaces()
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: taken } });
    await teams.create({
      apiVersion: 'k.example/v1',
      kind: 'TeamNamespace',
      metadata: { name: taken },
      spec: { owners: ['dave'] },
    });
    await eventually(async () =>
      expect(ready(await teams.get(taken))).toMatchObject({
        status: 'False',
        reason: 'NamespaceTaken',
      }),
    );
    expect((await cs.coreV1.namespaces().get(taken)).metadata?.ownerReferences).toBeUndefined();
    expect(await ignoreNotFound(cs.rbacV1.roleBindings(taken).get('team-owners'))).toBeUndefined();

    // Deleting the TeamNamespace deletes its Namespace (the garbage collector, then the
    // namespace controller empties it); the one it did not make stays.
    await teams.delete(name);
    await teams.delete(taken);
    await eventually(
      async () => expect(await ignoreNotFound(cs.coreV1.namespaces().get(name))).toBeUndefined(),
      60_000,
    );
    expect((await cs.coreV1.namespaces().get(taken)).metadata?.deletionTimestamp).toBeUndefined();
    const told = (await cs.eventsV1.events('default').list()).items.filter(
      (event) => event.regarding?.name === name && event.reason === 'OwnersBound',
    );
    expect(told.length).toBeGreaterThanOrEqual(1);

    program.child.kill('SIGTERM');
    const result = await program.exited;
    expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
    expect(result.stdout.trim().split('\n').at(-1)).toBe('stopped');
    // The Manager's default logger: one JSON object per line on stderr, and no errors.
    const lines = jsonLogLines(result.stderr);
    expect(lines.some((line) => line.msg === 'leading; starting controllers')).toBe(true);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);

    // Everything it did, it did with exactly the permissions of team-namespaces-rbac.yaml.
    const records = await environment().audit.records({ user });
    expect(records.filter((record) => record.code === 403)).toEqual([]);
    const used = new Set(records.map(permissionOf));
    for (const permission of [
      'watch teamnamespaces',
      'patch teamnamespaces/status',
      'watch namespaces',
      'create namespaces',
      'watch rolebindings',
      'patch rolebindings',
      'create leases',
      'update leases',
      'create events',
    ]) {
      expect(used, permission).toContain(permission);
    }
  });
});
