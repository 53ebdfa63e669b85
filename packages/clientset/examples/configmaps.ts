/**
 * Typed clients with @k/clientset: server-side apply a ConfigMap, read it back, list by label,
 * delete it and tell "gone" from "still finalizing".
 *
 *   npx tsx packages/clientset/examples/configmaps.ts [--kubeconfig=PATH] [--context=NAME] \
 *     [--namespace=NS]
 */
import { inferClientset, isNotFound } from '@k/clientset';

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length);
}

async function main(): Promise<void> {
  // Finds the configuration as kubectl does: --kubeconfig, KUBECONFIG, ~/.kube/config, in-cluster
  // (an option left out is undefined, which means unset).
  const cs = await inferClientset({
    kubeconfig: option('kubeconfig'),
    context: option('context'),
    overrides: { namespace: option('namespace') },
  });
  try {
    const configMaps = cs.coreV1.configMaps(); // the context's namespace, as kubectl
    const applied = await configMaps.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'k-example-clientset', labels: { example: 'clientset' } },
        data: { greeting: 'hello' },
      },
      { fieldManager: 'k-example' },
    );
    console.log(`applied ${cs.defaultNamespace}/${applied.metadata?.name}`);

    const read = await configMaps.get('k-example-clientset');
    console.log(`read greeting=${read.data?.greeting}`);

    const listed = await configMaps.list({ labelSelector: { example: 'clientset' } });
    console.log(`listed ${listed.items.map((item) => item.metadata?.name).join(', ')}`);

    const deleted = await configMaps.delete('k-example-clientset');
    console.log(`deleted, gone=${deleted.gone}`);

    try {
      await configMaps.get('k-example-clientset');
    } catch (error) {
      if (!isNotFound(error)) throw error;
      console.log('get after delete: not found');
    }
  } finally {
    await cs.close();
  }
}

main().catch((error: unknown) => {
  console.error(`configmaps: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
