/**
 * A small operator on @k/runtime's Manager: every ConfigMap labelled `k-example/mirror=true`
 * gets a copy, `<name>-copy`, that it owns (so the garbage collector deletes the copy with it).
 * Edit the source and the copy follows; delete or edit the copy and it is put back. Each copy
 * written is an Event on the source. `/healthz`, `/readyz` and `/metrics` are served on
 * `--port` (default 8080; 0 picks a free one); SIGTERM or Ctrl-C stops it gracefully.
 *
 *   npx tsx packages/runtime/examples/configmap-mirror.ts [--kubeconfig=PATH] [--context=NAME] \
 *     [--namespace=NS] [--port=8080]
 *
 * then, in the namespace: `kubectl create configmap greeting --from-literal=hello=world &&
 * kubectl label configmap greeting k-example/mirror=true` and `kubectl get configmap greeting-copy`.
 */
import { inferClientset, type ApplyConfiguration } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { EventRecorder, Manager, type Logger } from '@k/runtime';

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length);
}

const FIELD_MANAGER = 'k-example-mirror';

/** A logger for the operator's own warnings and errors (the runtime logs nothing by default). */
const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message, fields) => console.error(`warning: ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`error: ${message}`, fields ?? ''),
};

async function main(): Promise<void> {
  const kubeconfig = option('kubeconfig');
  const context = option('context');
  const cs = await inferClientset({
    ...(kubeconfig ? { kubeconfig } : {}),
    ...(context ? { context } : {}),
  });
  const namespace = option('namespace') ?? cs.defaultNamespace;
  const configMaps = cs.coreV1.configMaps(namespace);

  const manager = new Manager({
    port: Number(option('port') ?? 8080),
    logger,
    onListening: (address) => console.log(`listening ${address.url}`),
  });
  manager.closeOnShutdown(cs);
  const recorder = new EventRecorder(cs, {
    reportingController: 'k.example/configmap-mirror',
    logger,
  });
  manager.closeOnShutdown(recorder); // closed first: its queued Events go out before cs closes

  const sources = manager.informerFor(configMaps, {
    labelSelector: { 'k-example/mirror': 'true' },
  });
  const copies = manager.informerFor(configMaps, { labelSelector: 'k-example/copy-of' });

  manager
    .controller('configmap-mirror')
    .for(sources)
    .owns(copies) // a change to a copy reconciles the source that owns it
    .complete(async (request) => {
      const source = sources.lister.get(`${request.namespace}/${request.name}`);
      if (!source) return; // deleted: the garbage collector deletes its copy
      const name = `${request.name}-copy`;
      const copy = copies.lister.get(`${request.namespace}/${name}`);
      if (copy && JSON.stringify(copy.data ?? {}) === JSON.stringify(source.data ?? {})) return;
      const desired: ApplyConfiguration<ConfigMap> = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          labels: { 'k-example/copy-of': request.name },
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: request.name,
              uid: source.metadata?.uid ?? '',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        data: source.data ?? {},
      };
      await configMaps.apply(desired, { fieldManager: FIELD_MANAGER, force: true });
      recorder.normal(source, 'Mirrored', `copied to ${name}`);
      console.log(`mirrored ${request.namespace}/${request.name} -> ${name}`);
    });

  await manager.run(); // until SIGTERM or SIGINT; exit code 0 after a clean stop, 1 after a failure
  console.log('stopped');
}

main().catch((error: unknown) => {
  console.error(`configmap-mirror: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
