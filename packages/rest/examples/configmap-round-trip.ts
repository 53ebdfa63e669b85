/**
 * A ConfigMap's round trip through @k/rest: create it, update it with a read-modify-write retried
 * on conflicts, watch it change from the list's resourceVersion, then delete it.
 *
 *   npx tsx packages/rest/examples/configmap-round-trip.ts [--kubeconfig=PATH] [--context=NAME] \
 *     [--namespace=NS]
 */
import { inferConfig } from '@k/config';
import {
  createRestClient,
  isNotFound,
  retryOnConflict,
  type ListObject,
  type WatchEvent,
} from '@k/rest';

interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length);
}

async function main(): Promise<void> {
  // An option left out is undefined, which means unset.
  const config = await inferConfig({
    explicitPath: option('kubeconfig'),
    overrides: { context: option('context') },
  });
  const client = createRestClient(config); // a transport, a token bucket and client-go's retries
  const namespace = option('namespace') ?? client.defaultNamespace;
  const name = 'k-example-rest';
  const configMaps = () => client.get().namespace(namespace).resource('configmaps');
  try {
    await client
      .post()
      .namespace(namespace)
      .resource('configmaps')
      .body({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data: { greeting: 'hello' },
      })
      .execute<ConfigMap>();
    console.log(`created configmap ${namespace}/${name}`);

    // Watch from the list's resourceVersion: every change after it, none before.
    const list = await configMaps()
      .param('fieldSelector', `metadata.name=${name}`)
      .execute<ListObject<ConfigMap>>();
    const watch = await configMaps()
      .params({
        fieldSelector: `metadata.name=${name}`,
        resourceVersion: list.metadata?.resourceVersion,
      })
      .watch<ConfigMap>();
    const events: WatchEvent<ConfigMap>[] = [];
    const watching = (async () => {
      for await (const event of watch) {
        events.push(event);
        if (event.type === 'DELETED') break;
      }
    })();

    // Read-modify-write: a conflict with another writer reads again and retries.
    await retryOnConflict(async () => {
      const current = await configMaps().name(name).execute<ConfigMap>();
      await client
        .put()
        .namespace(namespace)
        .resource('configmaps')
        .name(name)
        .body({ ...current, data: { ...current.data, greeting: 'hello again' } })
        .execute();
    });
    await client.delete().namespace(namespace).resource('configmaps').name(name).execute();
    await watching;
    for (const event of events) {
      console.log(
        `watch: ${event.type} ${event.object.metadata?.name} ${JSON.stringify(event.object.data)}`,
      );
    }

    try {
      await configMaps().name(name).execute();
    } catch (error) {
      if (!isNotFound(error)) throw error;
      console.log(`configmap ${name} is gone`);
    }
  } finally {
    await client.close(); // ends the watch if it is still open, closes the transport
  }
}

main().catch((error: unknown) => {
  console.error(`configmap-round-trip: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
