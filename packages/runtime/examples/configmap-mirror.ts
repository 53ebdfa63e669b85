/**
 * The runtime README's first operator: every ConfigMap labelled `k-example/mirror=true` is mirrored
 * into the namespace `mirror` (`--target-namespace`) as `<namespace>.<name>`, kept in step, and
 * its mirror is deleted with it (a finalizer: owner references cannot cross namespaces). The
 * target namespace is the controller's: it owns every ConfigMap of that form there, and puts back
 * a mirror someone deletes or changes. A labelled ConfigMap inside the target namespace fails
 * terminally (a `ReconcileFailed` Event, no retries).
 * `/healthz` and `/readyz` are served on `--port` (default 8081), `/metrics` on `--metrics-port`
 * (default 8080, loopback); 0 picks a free port. SIGTERM or Ctrl-C stops it gracefully.
 *
 *   npx tsx packages/runtime/examples/configmap-mirror.ts [--kubeconfig=PATH] [--context=NAME] \
 *     [--target-namespace=mirror] [--port=8081] [--metrics-port=8080]
 */
import { ignoreNotFound } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { Manager, TerminalError, withFinalizer } from '@k/runtime';

const option = (name: string): string | undefined =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3);

async function main(): Promise<void> {
  const manager = await Manager.create({
    clientsetOptions: { kubeconfig: option('kubeconfig'), context: option('context') },
    probes: { port: Number(option('port') ?? 8081) },
    metricsServer: { port: Number(option('metrics-port') ?? 8080) },
    onListening: (address) => console.log(`listening ${address.serves} ${address.url}`),
  });
  const mirrors = manager.clientset.coreV1.configMaps(option('target-namespace') ?? 'mirror');
  const recorder = manager.eventRecorder({ reportingController: 'k.example/configmap-mirror' });
  const mirrorName = (source: ConfigMap): string =>
    `${source.metadata?.namespace}.${source.metadata?.name}`;

  manager
    .controller('configmap-mirror')
    .for(manager.clientset.coreV1.configMaps(''), { labelSelector: { 'k-example/mirror': 'true' } })
    // A mirror deleted or changed by someone else: its source is reconciled (namespaces have no dots).
    .watches(mirrors, (mirror) => {
      const [namespace = '', ...name] = (mirror.metadata?.name ?? '').split('.');
      return [{ namespace, name: name.join('.') }];
    })
    .withOptions({ recorder }) // a terminal error is a ReconcileFailed warning on the object
    .complete(
      withFinalizer('k.example/mirror', {
        apply: async (source) => {
          if (source.metadata?.namespace === mirrors.namespace) {
            throw new TerminalError('a ConfigMap in the mirror namespace is not mirrored');
          }
          await mirrors.apply(
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: mirrorName(source) },
              data: source.data ?? {},
            },
            { fieldManager: 'configmap-mirror', force: true },
          );
          recorder.normal(
            source,
            'Mirrored',
            `mirrored to ${mirrors.namespace}/${mirrorName(source)}`,
          );
        },
        cleanup: async (source) => {
          await ignoreNotFound(mirrors.delete(mirrorName(source)));
        },
      }),
    );

  await manager.run(); // until SIGTERM or SIGINT; exit code 0 after a clean stop, 1 after a failure
  console.log('stopped');
}

main().catch((error: unknown) => {
  console.error(`configmap-mirror: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
