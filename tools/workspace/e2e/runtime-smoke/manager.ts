/**
 * manager: an @k/runtime Manager with one controller. Each ConfigMap of the namespace labelled
 * `k-smoke=reconcile` gets an applied ConfigMap `<name>.reconciled`; `/healthz` and `/readyz` are
 * served on a free port (printed as `listening probes URL`), no `/metrics`. SIGTERM stops it;
 * `stopped` is printed last.
 *
 *   manager --kubeconfig=PATH --context=NAME --namespace=NS
 */
import { Manager } from '@k/runtime';

const option = (name: string): string =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3) ?? '';

async function main(): Promise<void> {
  const namespace = option('namespace');
  const manager = await Manager.create({
    clientsetOptions: { kubeconfig: option('kubeconfig'), context: option('context') },
    probes: { port: 0, host: '127.0.0.1' },
    metricsServer: false,
    onListening: (address) => console.log(`listening ${address.serves} ${address.url}`),
  });
  const configMaps = manager.clientset.coreV1.configMaps(namespace);
  manager
    .controller('smoke')
    .for(configMaps, { labelSelector: { 'k-smoke': 'reconcile' } })
    .complete(async (object) => {
      const name = `${object.metadata?.name}.reconciled`;
      await configMaps.apply(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { from: 'smoke' } },
        { fieldManager: 'k-smoke', force: true },
      );
      console.log(`reconciled ${object.metadata?.name}`);
    });
  await manager.run(); // until SIGTERM or SIGINT
  console.log('stopped');
}

main().catch((error: unknown) => {
  console.error(`manager: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
