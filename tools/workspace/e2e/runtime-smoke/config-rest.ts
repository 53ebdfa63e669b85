/**
 * config-rest: @k/config loads the kubeconfig, @k/rest GETs the server's version, LISTs
 * ConfigMaps and watches from the list's resourceVersion until it sees the ConfigMap it creates.
 * Prints one JSON line.
 *
 *   config-rest --kubeconfig=PATH --context=NAME --namespace=NS
 */
import { loadKubeconfig, resolveConfig } from '@k/config';
import { createRestClient, type ListObject } from '@k/rest';

interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

const option = (name: string): string =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3) ?? '';

async function main(): Promise<void> {
  const loaded = await loadKubeconfig({ explicitPath: option('kubeconfig') });
  const config = resolveConfig(loaded, { context: option('context') });
  const client = createRestClient(config);
  const namespace = option('namespace');
  try {
    const version = await client.get().absPath('/version').execute<{ gitVersion: string }>();
    const configMaps = () => client.get().namespace(namespace).resource('configmaps');
    const list = await configMaps().execute<ListObject<ConfigMap>>();
    const watch = await configMaps()
      .params({ resourceVersion: list.metadata?.resourceVersion })
      .watch<ConfigMap>();
    const seen = (async () => {
      for await (const event of watch) {
        if (event.object.metadata?.name === 'smoke-watched') return event.type;
      }
      return 'ended';
    })();
    await client
      .post()
      .namespace(namespace)
      .resource('configmaps')
      .body({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'smoke-watched' } })
      .execute();
    const event = await seen;
    console.log(
      JSON.stringify({
        server: config.server,
        version: version.gitVersion,
        listed: list.items.length,
        watched: event,
      }),
    );
  } finally {
    await client.close();
  }
}

main().catch((error: unknown) => {
  console.error(`config-rest: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
