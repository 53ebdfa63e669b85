/**
 * The @k/envtest README's example operator, on @k/runtime. For each Greeting
 * (greeting-crd.yaml; its client is k-gen's, in generated/) in one namespace it server-side
 * applies the ConfigMap `<name>-greeting` whose `message` is the Greeting's, and reports the
 * ConfigMap's name and the generation it wrote in the Greeting's status.
 *
 * A finalizer deletes the ConfigMap when its Greeting is deleted. An owner reference would leave
 * that to kube-controller-manager's garbage collector, which a control plane from a
 * `KUBEBUILDER_ASSETS` directory does not run; the finalizer works on both, and is what the
 * tests beside it (operator.e2e.test.ts for vitest, operator.node-test.ts for node:test) prove.
 *
 * It reconciles one namespace, so tests on a shared control plane do not see each other's
 * Greetings, and needs only GREETING_OPERATOR_RULES.
 */
import { ignoreNotFound } from '@k/clientset';
import type { PolicyRule } from '@k/clientset/rbac/v1';
import { Manager, SILENT_LOGGER, withFinalizer, type Logger } from '@k/runtime';
import { createGreetingsClient, type Greeting } from './generated/greeting-v1.js';

/** FINALIZER holds a Greeting until its ConfigMap is deleted. */
export const FINALIZER = 'k.example/greeting-configmap';
/** APPLY are the options of its server-side applies: its values win over another manager's. */
const APPLY = { fieldManager: 'greeting-operator', force: true };

/**
 * GREETING_OPERATOR_RULES are the permissions it needs for its namespace: its informer lists and
 * watches Greetings, the finalizer is a JSON patch (read again after a lost race), the status an
 * apply of the status subresource, and the ConfigMap an apply (which may create it) or a delete.
 * Grant them by a ClusterRole, or a Role that outlives the namespace's deletion: while the namespace
 * goes, the operator still removes its finalizers.
 */
export const GREETING_OPERATOR_RULES: readonly PolicyRule[] = [
  { apiGroups: ['k.example'], resources: ['greetings'], verbs: ['get', 'list', 'watch', 'patch'] },
  { apiGroups: ['k.example'], resources: ['greetings/status'], verbs: ['patch'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch', 'delete'] },
];

/** configMapName is the name of the ConfigMap that holds `greeting`'s message. */
export function configMapName(greeting: Greeting): string {
  return `${greeting.metadata?.name ?? ''}-greeting`;
}

/** GreetingOperatorOptions configure {@link startGreetingOperator}. */
export interface GreetingOperatorOptions {
  /** kubeconfig is the operator's identity: a kubeconfig file whose current context it uses. */
  readonly kubeconfig: string;
  /** namespace is the one namespace whose Greetings it reconciles. */
  readonly namespace: string;
  /** logger gets the Manager's log lines (default none). */
  readonly logger?: Logger | undefined;
}

/** GreetingOperator is a running operator; stop it (or dispose of it) to end it. */
export interface GreetingOperator extends AsyncDisposable {
  /** stop ends the operator gracefully and rejects with what made it fail, if anything did. */
  stop(): Promise<void>;
}

/**
 * startGreetingOperator runs the operator in this process until `stop()`: a Manager without
 * probes, metrics or leader election, with one controller behind `withFinalizer`.
 */
export async function startGreetingOperator(
  options: GreetingOperatorOptions,
): Promise<GreetingOperator> {
  const manager = await Manager.create({
    clientsetOptions: { kubeconfig: options.kubeconfig },
    probes: false,
    metricsServer: false,
    logger: options.logger ?? SILENT_LOGGER,
  });
  const configMaps = manager.clientset.coreV1.configMaps(options.namespace);
  manager
    .controller('greetings')
    .for(createGreetingsClient(manager.clientset.rest, options.namespace))
    .complete(
      withFinalizer(FINALIZER, {
        apply: async (greeting, context) => {
          const name = configMapName(greeting);
          await configMaps.apply(
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name, labels: { 'k.example/greeting': greeting.metadata?.name ?? '' } },
              data: { message: greeting.spec.message },
            },
            APPLY,
          );
          const generation = greeting.metadata?.generation;
          if (
            greeting.status?.configMap === name &&
            greeting.status.observedGeneration === generation
          ) {
            return; // the status says so already: no write
          }
          const status = { configMap: name, observedGeneration: generation };
          const configuration = {
            apiVersion: 'k.example/v1' as const,
            kind: 'Greeting' as const,
            metadata: { name: greeting.metadata?.name ?? '' },
            status,
          };
          // Remembered: the next reconcile gets this status, not the cache's older copy.
          context.remember(await context.client.applyStatus(configuration, APPLY));
        },
        cleanup: async (greeting) => {
          await ignoreNotFound(configMaps.delete(configMapName(greeting)));
        },
      }),
    );
  const stopping = new AbortController();
  const running = manager.start(stopping.signal);
  running.catch(() => {}); // told by stop()
  const stop = async (): Promise<void> => {
    stopping.abort();
    await running;
  };
  return { stop, [Symbol.asyncDispose]: stop };
}
