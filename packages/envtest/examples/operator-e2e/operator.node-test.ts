/**
 * The greeting operator's e2e test under node:test, the same checks as operator.e2e.test.ts.
 * Compiled to JavaScript and run with `node --test operator.node-test.js`, it starts a control
 * plane for this file; under `npx k-envtest run -- node --test …` it connects to the run's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isNotFound } from '@k/clientset';
import { eventually, type TestNamespace } from '@k/envtest';
import { useEnvironment } from '@k/envtest/node-test';
import {
  createGreetingsClient,
  type Greeting,
  type GreetingsClient,
} from './generated/greeting-v1.js';
import {
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

/** gone resolves when `read` fails with 404 Not Found, and fails while it succeeds. */
async function gone(read: () => Promise<unknown>): Promise<void> {
  await assert.rejects(read(), (error: unknown) => isNotFound(error));
}

void describe('the greeting operator', () => {
  let namespace: TestNamespace;
  let operator: GreetingOperator;
  let greetings: GreetingsClient;

  before(async () => {
    await env.installCrds({ paths: [CRD] });
    namespace = await env.createTestNamespace({ prefix: 'greetings' });
    // A ClusterRole: a Role in the namespace would go with it before the finalizers are removed.
    const operatorUser = await env.user({ rules: GREETING_OPERATOR_RULES });
    operator = await startGreetingOperator({
      kubeconfig: operatorUser.kubeconfigPath,
      namespace: namespace.name,
    });
    greetings = createGreetingsClient((await env.admin.clientset()).rest, namespace.name);
  });

  after(async () => {
    // The namespace first, while the operator runs to remove the finalizers of what is left.
    await namespace?.delete();
    await operator?.stop();
  });

  void it('publishes a Greeting as a ConfigMap and reports it in the status', async () => {
    await greetings.create(greeting('hello', 'Hello, world'));
    const configMaps = (await env.admin.clientset()).coreV1.configMaps(namespace.name);

    const configMap = await eventually(() => configMaps.get('hello-greeting'));
    assert.deepEqual(configMap.data, { message: 'Hello, world' });
    await eventually(async () => {
      const greeting = await greetings.get('hello');
      assert.deepEqual(greeting.metadata?.finalizers, [FINALIZER]);
      assert.deepEqual(greeting.status, { configMap: 'hello-greeting', observedGeneration: 1 });
    });
  });

  void it('deletes the ConfigMap with its Greeting, without a garbage collector', async () => {
    await greetings.create(greeting('bye', 'Goodbye'));
    const configMaps = (await env.admin.clientset()).coreV1.configMaps(namespace.name);
    await eventually(() => configMaps.get('bye-greeting'));

    await greetings.delete('bye');
    await eventually(async () => {
      await gone(() => greetings.get('bye'));
      await gone(() => configMaps.get('bye-greeting'));
    });
  });
});
