/**
 * The greeting operator's e2e test under vitest, on the control plane of
 * `@k/envtest/vitest/global-setup` (vitest.config.ts). The operator runs in this process as a
 * user bound to exactly its RBAC, so a missing rule fails here, and reconciles a namespace of this
 * file's own, so other files on the same plane are not disturbed. Nothing relies on kube-controller-manager:
 * it passes on built binaries and on a `KUBEBUILDER_ASSETS` directory of kube-apiserver and etcd.
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, type TestNamespace, type TestUser } from '@k/envtest';
import { useEnvironment } from '@k/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGreetingsClient,
  type Greeting,
  type GreetingsClient,
} from './generated/greeting-v1.js';
import {
  configMapName,
  FINALIZER,
  GREETING_OPERATOR_RULES,
  startGreetingOperator,
  type GreetingOperator,
} from './operator.js';

const CRD = fileURLToPath(new URL('greeting-crd.yaml', import.meta.url));

const env = useEnvironment();

/** greeting is a new Greeting (custom resources need their apiVersion and kind in a create). */
function greeting(name: string, message: string): Greeting {
  return { apiVersion: 'k.example/v1', kind: 'Greeting', metadata: { name }, spec: { message } };
}

describe('the greeting operator', () => {
  let namespace: TestNamespace;
  let operatorUser: TestUser;
  let operator: GreetingOperator;
  let greetings: GreetingsClient;

  beforeAll(async () => {
    await env.installCrds({ paths: [CRD] }); // served when it resolves; again on a shared plane: no change
    namespace = await env.createTestNamespace({ prefix: 'greetings' });
    // A ClusterRole, not a Role in the namespace: the namespace's deletion deletes its Roles too,
    // and the operator must keep its rights until it has removed its finalizers.
    operatorUser = await env.user({ rules: GREETING_OPERATOR_RULES });
    operator = await startGreetingOperator({
      kubeconfig: operatorUser.kubeconfigPath,
      namespace: namespace.name,
    });
    greetings = createGreetingsClient((await env.admin.clientset()).rest, namespace.name);
  });

  afterAll(async () => {
    // The namespace goes first, while the operator runs: deleting it deletes the Greetings left,
    // and each waits for the operator to run its cleanup and remove the finalizer.
    await namespace?.delete();
    await operator?.stop();
  });

  it('publishes a Greeting as a ConfigMap and reports it in the status', async () => {
    await greetings.create(greeting('hello', 'Hello, world'));
    const configMaps = (await env.admin.clientset()).coreV1.configMaps(namespace.name);

    const configMap = await eventually(() => configMaps.get('hello-greeting'));
    expect(configMap.data).toEqual({ message: 'Hello, world' });
    await eventually(async () => {
      const greeting = await greetings.get('hello');
      expect(greeting.metadata?.finalizers).toEqual([FINALIZER]);
      expect(greeting.status).toEqual({ configMap: 'hello-greeting', observedGeneration: 1 });
    });
  });

  it('follows a changed message, then writes nothing while nothing changes', async () => {
    const created = await greetings.create(greeting('changes', 'one'));
    const configMaps = (await env.admin.clientset()).coreV1.configMaps(namespace.name);
    await eventually(async () =>
      expect((await greetings.get('changes')).status?.observedGeneration).toBe(1),
    );

    await greetings.patch('changes', 'merge', { spec: { message: 'two' } });
    await eventually(async () => {
      expect((await configMaps.get(configMapName(created))).data).toEqual({ message: 'two' });
      expect((await greetings.get('changes')).status?.observedGeneration).toBe(2);
    });

    // Idle: the audit log shows no write by the operator's user after this mark.
    const mark = await env.audit.mark();
    await sleep(2000);
    expect(await env.audit.records({ since: mark, user: operatorUser.name, writes: true })).toEqual(
      [],
    );
  });

  it('deletes the ConfigMap with its Greeting, without a garbage collector', async () => {
    await greetings.create(greeting('bye', 'Goodbye'));
    const configMaps = (await env.admin.clientset()).coreV1.configMaps(namespace.name);
    await eventually(() => configMaps.get('bye-greeting'));

    await greetings.delete('bye');
    await eventually(async () => {
      await expect(greetings.get('bye')).rejects.toMatchObject({ statusCode: 404 });
      await expect(configMaps.get('bye-greeting')).rejects.toMatchObject({ statusCode: 404 });
    });
  });
});
