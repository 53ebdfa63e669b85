/**
 * clientset: @k/clientset's typed ConfigMap client creates, reads, updates, server-side applies
 * and deletes one ConfigMap. Prints one JSON line.
 *
 *   clientset --kubeconfig=PATH --context=NAME --namespace=NS
 */
import { inferClientset, isNotFound } from '@k/clientset';

const option = (name: string): string =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3) ?? '';

async function main(): Promise<void> {
  const cs = await inferClientset({ kubeconfig: option('kubeconfig'), context: option('context') });
  try {
    const configMaps = cs.coreV1.configMaps(option('namespace'));
    const created = await configMaps.create({
      metadata: { name: 'smoke-typed' },
      data: { step: 'created' },
    });
    const read = await configMaps.get('smoke-typed');
    const updated = await configMaps.update({ ...read, data: { step: 'updated' } });
    const applied = await configMaps.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'smoke-typed' },
        data: { step: 'applied' },
      },
      { fieldManager: 'k-smoke', force: true },
    );
    const deleted = await configMaps.delete('smoke-typed');
    const gone = await configMaps.get('smoke-typed').then(
      () => false,
      (error: unknown) => isNotFound(error),
    );
    console.log(
      JSON.stringify({
        steps: [created.data?.step, read.data?.step, updated.data?.step, applied.data?.step],
        managers: applied.metadata?.managedFields?.map((field) => field.manager).sort(),
        deleted: deleted.gone,
        gone,
      }),
    );
  } finally {
    await cs.close();
  }
}

main().catch((error: unknown) => {
  console.error(`clientset: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
