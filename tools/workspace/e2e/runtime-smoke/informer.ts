/**
 * informer: an @k/runtime informer of the namespace's ConfigMaps syncs, then sees one created
 * after the sync in its cache. Prints one JSON line.
 *
 *   informer --kubeconfig=PATH --context=NAME --namespace=NS
 */
import { inferClientset } from '@k/clientset';
import { Informer } from '@k/runtime/informer';

const option = (name: string): string =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3) ?? '';

async function main(): Promise<void> {
  const cs = await inferClientset({ kubeconfig: option('kubeconfig'), context: option('context') });
  const namespace = option('namespace');
  const informer = new Informer(cs.coreV1.configMaps(namespace));
  try {
    const added = new Promise<string>((resolve) => {
      informer.addEventHandler({
        onAdd: (object) => {
          if (object.metadata?.name === 'smoke-informed') resolve('added');
        },
      });
    });
    informer.start();
    await informer.waitForSync(AbortSignal.timeout(30_000));
    const synced = informer.health().ready;
    await cs.coreV1.configMaps(namespace).create({ metadata: { name: 'smoke-informed' } });
    const event = await added;
    console.log(
      JSON.stringify({
        synced,
        event,
        cached: informer.lister.getByName('smoke-informed', namespace)?.metadata?.name,
      }),
    );
  } finally {
    await informer.stop();
    await cs.close();
  }
}

main().catch((error: unknown) => {
  console.error(`informer: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
