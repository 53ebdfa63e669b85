import { loadKubeconfig, resolveConfig } from '@k/config';
import { MODULE_KINDS, startNodeProgram } from '@k/test-utils';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { describe, expect, it } from 'vitest';
import { createRestClient, isForbidden, type RestClient } from '../src/index.js';

// A real 429 from the API server's priority and fairness: a priority level with one seat that
// rejects instead of queueing, for one user only. The test holds the seat with LISTs that the
// watch cache parks for 3 s (a resourceVersion from the future), so the program's LIST is
// rejected with Retry-After and must wait — in a plain node process, where nothing else holds
// the event loop open during that wait.

const namespace = useTestNamespace({ prefix: 'apf' });

async function adminClient(impersonate?: string): Promise<RestClient> {
  const kubeconfig = await loadKubeconfig({ explicitPath: controlPlane().kubeconfigPath });
  return createRestClient(
    resolveConfig(kubeconfig, { context: 'admin', ...(impersonate ? { impersonate } : {}) }),
    { throttle: 'off' },
  );
}

/** rejectOneSeatFor puts `user` alone on a one-seat priority level that rejects when busy. */
async function rejectOneSeatFor(admin: RestClient, user: string): Promise<() => Promise<void>> {
  const flowcontrol = admin.withGroupVersion('flowcontrol.apiserver.k8s.io/v1');
  await flowcontrol
    .post()
    .resource('prioritylevelconfigurations')
    .body({
      metadata: { name: user },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 0,
          lendablePercent: 0,
          borrowingLimitPercent: 0,
          limitResponse: { type: 'Reject' },
        },
      },
    })
    .execute();
  const flowSchema = await flowcontrol
    .post()
    .resource('flowschemas')
    .body({
      metadata: { name: user },
      spec: {
        priorityLevelConfiguration: { name: user },
        matchingPrecedence: 200,
        distinguisherMethod: { type: 'ByUser' },
        rules: [
          {
            subjects: [{ kind: 'User', user: { name: user } }],
            resourceRules: [
              {
                verbs: ['*'],
                apiGroups: ['*'],
                resources: ['*'],
                namespaces: ['*'],
                clusterScope: true,
              },
            ],
          },
        ],
      },
    })
    .execute<{ metadata: { uid: string } }>();
  await admin
    .post()
    .namespace(namespace.name)
    .resource('rolebindings')
    .groupVersion('rbac.authorization.k8s.io/v1')
    .body({
      metadata: { name: 'apf-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    })
    .execute();
  // The server's flow-control configuration and its RBAC authorizer follow the objects within a
  // moment: until then the user's LIST is classified elsewhere, or refused (403).
  const victim = await adminClient(user);
  for (;;) {
    const response = await victim
      .get()
      .namespace(namespace.name)
      .resource('configmaps')
      .executeResponse()
      .catch((error: unknown) => {
        if (isForbidden(error)) return undefined;
        throw error;
      });
    if (response?.headers['x-kubernetes-pf-flowschema-uid'] === flowSchema.metadata.uid) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await victim.dispatcher.close();
  return async () => {
    await flowcontrol.delete().resource('flowschemas').name(user).execute();
    await flowcontrol.delete().resource('prioritylevelconfigurations').name(user).execute();
  };
}

describe.each(MODULE_KINDS)('a plain %s program answered 429 by priority and fairness', (kind) => {
  it('waits out Retry-After and finishes its LIST', async () => {
    const user = `apf-${namespace.name}`;
    const admin = await adminClient();
    const removeLevel = await rejectOneSeatFor(admin, user);
    const holder = await adminClient(user);
    let holding = true;
    const seatHeld = (async () => {
      while (holding) {
        // Parked by the watch cache for 3 s, holding the level's only seat; then a 504.
        await holder
          .get()
          .namespace(namespace.name)
          .resource('configmaps')
          .params({ resourceVersion: '999999999', resourceVersionMatch: 'NotOlderThan' })
          .maxRetries(0)
          .execute()
          .catch(() => undefined);
      }
    })();
    try {
      const program = await startNodeProgram(
        {
          imports: {
            '@k/config': ['loadKubeconfig', 'resolveConfig'],
            '@k/rest': ['createRestClient'],
          },
          main: `
const kubeconfig = await loadKubeconfig({ explicitPath: process.env.KUBECONFIG });
const config = resolveConfig(kubeconfig, { context: 'admin', impersonate: process.argv[3] });
const client = createRestClient(config, {
  onRetry: (event) => console.log('retrying after', event.delayMs),
});
const list = await client.get().namespace(process.argv[2]).resource('configmaps').execute();
console.log('listed', Array.isArray(list.items));
await client.close();`,
        },
        kind,
        {
          env: { KUBECONFIG: controlPlane().kubeconfigPath },
          args: [namespace.name, user],
          timeoutMs: 60_000,
        },
      );
      await program.waitForStdout(/retrying after/);
      holding = false;
      const result = await program.exited;
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/^(retrying after \d+(\.\d+)?\n)+listed true\n$/);
    } finally {
      holding = false;
      await seatHeld;
      await removeLevel();
      await holder.dispatcher.close();
      await admin.dispatcher.close();
    }
  });
});
