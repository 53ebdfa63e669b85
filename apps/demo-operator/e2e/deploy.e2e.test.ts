import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isForbidden, parseManifests, type Clientset, type UnstructuredObject } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { Pod } from '@k/clientset/core/v1';
import { environment, useTestNamespace } from '@k/envtest/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebAppsClient, type WebApp } from '../src/generated/web-app-v1beta1.js';
import { OPERATOR_BIN, startChild, type Child } from './child-process.js';
import { APP_ROOT, clientsetFor, eventually, installCrd, permissionOf, webApp } from './helpers.js';

const FIELD_MANAGER = 'demo-operator-e2e';
const manifest = (file: string) => readFileSync(path.join(APP_ROOT, 'deploy', file), 'utf8');
const namespace = useTestNamespace({ prefix: 'demo-operator-rbac' });
const children: Child[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
let cs: Clientset;

beforeAll(async () => {
  cs = await clientsetFor();
  await installCrd(cs);
});

afterEach(async () => {
  for (const child of children.splice(0)) child.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

afterAll(async () => {
  await cs?.close();
});

describe('the manifests of deploy/', () => {
  it('all apply to the real API server (server-side dry run), and the operator’s Pod meets the restricted Pod Security Standard', async () => {
    // The namespaced objects' dry run needs their namespace to exist (a dry run creates nothing).
    await cs.applyManifests(manifest('namespace.yaml'), {
      fieldManager: FIELD_MANAGER,
      force: true,
    });
    const applied: string[] = [];
    let deployment: Deployment | undefined;
    // certificate.yaml is not among them: cert-manager's kinds do not exist here (deploy/webhook-manifests.test.ts checks it).
    for (const file of [
      'namespace.yaml',
      'crd.yaml',
      'rbac.yaml',
      'deployment.yaml',
      'webhook-service.yaml',
      'webhooks.yaml',
    ]) {
      for (const { object } of await cs.applyManifests(manifest(file), {
        fieldManager: FIELD_MANAGER,
        force: true,
        dryRun: 'All',
      })) {
        applied.push(`${object.kind}/${object.metadata?.name}`);
        if (object.kind === 'Deployment') deployment = object as unknown as Deployment;
      }
    }
    expect(applied).toEqual([
      'Namespace/demo-operator-system',
      'CustomResourceDefinition/webapps.apps.k.example',
      'ServiceAccount/demo-operator',
      'ClusterRole/demo-operator',
      'ClusterRoleBinding/demo-operator',
      'Role/demo-operator',
      'RoleBinding/demo-operator',
      'Deployment/demo-operator',
      'Service/demo-operator-webhook',
      'ValidatingWebhookConfiguration/demo-operator',
      'MutatingWebhookConfiguration/demo-operator',
    ]);
    // What the server made of the Deployment: two replicas, probes, resources, non-root, read-only.
    expect(deployment?.spec.replicas).toBe(2);
    const pod = deployment!.spec.template.spec!;
    const container = pod.containers[0]!;
    expect(pod.serviceAccountName).toBe('demo-operator');
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532 });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'probes' });
    expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'probes' });
    expect(container.ports).toEqual([
      { name: 'probes', containerPort: 8081, protocol: 'TCP' },
      { name: 'webhook', containerPort: 9443, protocol: 'TCP' },
    ]);
    expect(container.volumeMounts).toEqual([
      {
        name: 'webhook-certificate',
        mountPath: '/tmp/k8s-webhook-server/serving-certs',
        readOnly: true,
      },
    ]);
    expect(container.resources?.limits?.memory).toBe('160Mi');
    expect(container.args).toEqual(
      expect.arrayContaining([
        '--leader-elect=true',
        '--health-probe-bind-address=:8081',
        '--metrics-bind-address=127.0.0.1:8080',
        '--webhook-bind-address=:9443',
      ]),
    );

    // The namespace enforces "restricted": a Pod of the template is admitted, and one that runs as
    // root is not (so the admission is really checking).
    const pods = cs.coreV1.pods('demo-operator-system');
    const podOf = (spec: Pod['spec']): Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'demo-operator-psa' },
      spec,
    });
    // (Without its ServiceAccount, which a dry run of rbac.yaml did not create.)
    const admitted = {
      ...structuredClone(pod),
      serviceAccountName: undefined,
      serviceAccount: undefined,
    };
    await pods.create(podOf(admitted), { dryRun: 'All' });
    const asRoot = structuredClone(admitted);
    asRoot.securityContext = { ...asRoot.securityContext, runAsNonRoot: false, runAsUser: 0 };
    const refused = await pods
      .create(podOf(asRoot), { dryRun: 'All' })
      .catch((error: unknown) => error);
    expect(isForbidden(refused)).toBe(true);
    expect(String((refused as Error).message)).toMatch(/violates PodSecurity "restricted/);
  });
});

interface Rule {
  resources: string[];
  verbs: string[];
}

/**
 * installRbac applies deploy/rbac.yaml for real, moved into the test's namespace (the cluster-wide
 * objects renamed after it), its ClusterRole's rules passed through `narrow`; returns the
 * ServiceAccount's user name.
 */
async function installRbac(narrow: (rules: Rule[]) => Rule[] = (rules) => rules): Promise<string> {
  const clusterName = `demo-operator-${namespace.name}`;
  const objects = (await parseManifests(manifest('rbac.yaml'))) as (UnstructuredObject & {
    rules?: Rule[];
    roleRef?: { name: string };
    subjects?: { namespace: string }[];
  })[];
  for (const object of objects) {
    if (object.kind === 'ClusterRole' || object.kind === 'ClusterRoleBinding')
      object.metadata!.name = clusterName;
    else object.metadata!.namespace = namespace.name;
    if (object.kind === 'ClusterRole') object.rules = narrow(object.rules ?? []);
    if (object.kind === 'ClusterRoleBinding') object.roleRef!.name = clusterName;
    for (const subject of object.subjects ?? []) subject.namespace = namespace.name;
  }
  await cs.applyManifests(objects.map((object) => JSON.stringify(object)).join('\n---\n'), {
    fieldManager: FIELD_MANAGER,
  });
  cleanups.push(async () => {
    await cs.rbacV1.clusterRoleBindings().delete(clusterName);
    await cs.rbacV1.clusterRoles().delete(clusterName);
  });
  return `system:serviceaccount:${namespace.name}:demo-operator`;
}

/** operatorAsServiceAccount runs the operator process with a kubeconfig holding a TokenRequest token of the ServiceAccount. */
async function operatorAsServiceAccount(leading = true): Promise<Child> {
  const serviceAccount = await environment().serviceAccountUser({
    namespace: namespace.name,
    name: 'demo-operator',
  });
  const kubeconfig = serviceAccount.kubeconfigPath;
  const child = startChild(OPERATOR_BIN, [
    `--kubeconfig=${kubeconfig}`,
    `--namespace=${namespace.name}`,
    `--operator-namespace=${namespace.name}`,
    '--identity=rbac',
    '--health-probe-bind-address=127.0.0.1:0',
    '--metrics-bind-address=off',
  ]);
  children.push(child);
  if (leading) await child.waitForOutput(/leading; starting controllers/);
  return child;
}

function condition(webapp: WebApp, type: string) {
  return webapp.status?.conditions?.find((candidate) => candidate.type === type);
}

describe('the operator under its ServiceAccount (a TokenRequest token)', () => {
  it('does all its work with the permissions of deploy/rbac.yaml and is never refused', async () => {
    const user = await installRbac();
    const operator = await operatorAsServiceAccount();
    const webapps = createWebAppsClient(cs.rest, namespace.name);
    await webapps.create(webApp('rbac'));
    await eventually(async () => {
      const current = await webapps.get('rbac');
      expect(current.status?.readyReplicas).toBe(2);
      expect(condition(current, 'Available')?.status).toBe('True');
    });
    // A change of the WebApp and drift of the Service: a live read, then a patch of each.
    await webapps.patch('rbac', 'merge', { spec: { replicas: 3 } });
    await cs.coreV1
      .services(namespace.name)
      .patch(
        'rbac',
        'merge',
        { spec: { selector: { 'app.kubernetes.io/instance': 'other' } } },
        { fieldManager: 'someone' },
      );
    await eventually(async () => {
      expect((await cs.appsV1.deployments(namespace.name).get('rbac')).spec.replicas).toBe(3);
      expect(
        (await cs.coreV1.services(namespace.name).get('rbac')).spec?.selector?.[
          'app.kubernetes.io/instance'
        ],
      ).toBe('rbac');
    });
    await webapps.delete('rbac');
    await eventually(async () => expect((await webapps.list()).items).toEqual([]));

    const records = await environment().audit.records({ user });
    expect(records.filter((record) => record.code === 403)).toEqual([]);
    const used = new Set(records.map(permissionOf));
    for (const permission of [
      'watch webapps',
      'patch webapps',
      'patch webapps/status',
      'create deployments',
      'get deployments',
      'patch deployments',
      'create services',
      'get services',
      'patch services',
      'create configmaps',
      'patch configmaps',
      'watch configmaps',
      'create leases',
      'update leases',
      'create events',
    ]) {
      expect(used, permission).toContain(permission);
    }
    expect(operator.output()).not.toMatch(/forbidden/i);
    operator.child.kill('SIGTERM');
    expect(await operator.exited).toMatchObject({ code: 0 });
  });

  it('without the right to create Services is refused at the first one, and says so in the WebApp’s status', async () => {
    const user = await installRbac((rules) =>
      rules.map((rule) =>
        rule.resources.includes('services')
          ? { ...rule, verbs: rule.verbs.filter((verb) => verb !== 'create') }
          : rule,
      ),
    );
    const operator = await operatorAsServiceAccount();
    const webapps = createWebAppsClient(cs.rest, namespace.name);
    await webapps.create(webApp('narrow'));
    await eventually(async () => {
      const degraded = condition(await webapps.get('narrow'), 'Degraded');
      expect(degraded).toMatchObject({ status: 'True', reason: 'ApplyFailed' });
      expect(degraded?.message).toMatch(
        /services is forbidden: User "system:serviceaccount:[^"]+:demo-operator" cannot create resource "services"/,
      );
    });
    await cs.appsV1.deployments(namespace.name).get('narrow'); // what it may do, it did
    const refused = await environment().audit.records({
      user,
      resource: 'services',
      verb: 'create',
    });
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((record) => record.code === 403)).toBe(true);
    await webapps.delete('narrow');
    await eventually(async () => expect((await webapps.list()).items).toEqual([]));
    operator.child.kill('SIGTERM');
    await operator.exited;
  });

  it('without the right to watch Services never starts reconciling, /readyz fails and the log says why', async () => {
    const user = await installRbac((rules) =>
      rules.filter((rule) => !rule.resources.includes('services')),
    );
    const operator = await operatorAsServiceAccount(false);
    const url = (await operator.waitForOutput(/serving probes url=(\S+)/))[1]!;
    const webapps = createWebAppsClient(cs.rest, namespace.name);
    await webapps.create(webApp('blind'));
    // Probed until the reason names the refused list (before that it is "listing"): it names the
    // service account, so it is logged, not served to whoever can reach the port.
    await eventually(async () => {
      const response = await fetch(`${url}/readyz`);
      expect(response.status).toBe(500);
      const body = await response.text();
      expect(body).toContain('[-]informers failed: reason withheld');
      expect(body).not.toContain('serviceaccount');
      expect(operator.output()).toMatch(
        /health check failed .*check=informers .*services in namespace \S+ not synced \(.*cannot list resource \\?"services/,
      );
    });
    expect(
      (
        await environment().audit.records({
          user,
          resource: 'services',
          verb: 'list',
        })
      ).every((record) => record.code === 403),
    ).toBe(true);
    // The controller waits for every cache: nothing is reconciled, so nothing half done is written.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await webapps.get('blind')).metadata?.finalizers).toBeUndefined();
    expect((await cs.appsV1.deployments(namespace.name).list()).items).toEqual([]);
    await webapps.delete('blind');
    operator.child.kill('SIGTERM');
    await operator.exited;
  });
});
