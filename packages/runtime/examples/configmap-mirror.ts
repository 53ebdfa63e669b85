/**
 * A small operator on @k/runtime's Manager: every ConfigMap labelled `k-example/mirror=true`
 * gets a copy, `<name>-copy`, that it owns (so the garbage collector deletes the copy with it).
 * It never adopts a ConfigMap of that name it did not create: it creates the copy (which fails
 * when the name is taken), changes it only when the source controls it by UID, and otherwise
 * leaves it alone with a `Conflict` warning Event.
 * Edit the source and the copy follows; delete or edit the copy and it is put back. Each copy
 * written is an Event on the source. `/healthz` and `/readyz` are served on `--port` (default
 * 8081, every interface) and `/metrics` on `--metrics-port` (default 8080, loopback only); 0 picks
 * a free port. SIGTERM or Ctrl-C stops it gracefully.
 *
 *   npx tsx packages/runtime/examples/configmap-mirror.ts [--kubeconfig=PATH] [--context=NAME] \
 *     [--namespace=NS] [--port=8081] [--metrics-port=8080]
 *
 * then, in the namespace: `kubectl create configmap greeting --from-literal=hello=world &&
 * kubectl label configmap greeting k-example/mirror=true` and `kubectl get configmap greeting-copy`.
 */
import { inferClientset, isAlreadyExists } from '@k/clientset';
import type { ConfigMap } from '@k/clientset/core/v1';
import { EventRecorder, Manager, isControlledBy, type Logger } from '@k/runtime';

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
    probes: { port: Number(option('port') ?? 8081) },
    metricsServer: { port: Number(option('metrics-port') ?? 8080) },
    logger,
    onListening: (address) => console.log(`listening ${address.serves} ${address.url}`),
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
      const data = source.data ?? {};
      // The cache holds only labelled copies: a ConfigMap of that name may be someone else's.
      let copy = copies.lister.get(`${request.namespace}/${name}`);
      if (!copy) {
        try {
          // A create, not an apply: it fails when the name is taken, so nothing is adopted.
          await configMaps.create(
            {
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
              data,
            },
            { fieldManager: FIELD_MANAGER },
          );
          return mirrored(source, name);
        } catch (error) {
          if (!isAlreadyExists(error)) throw error;
        }
        copy = await configMaps.get(name);
      }
      // Ours only if this source controls it, by UID (a label can be copied by anyone).
      if (!isControlledBy(copy, source)) {
        recorder.warning(source, 'Conflict', `${name} exists and is not this ConfigMap's copy`);
        console.log(`left ${request.namespace}/${name} alone: not ours`);
        return { requeueAfterMs: 60_000 };
      }
      if (JSON.stringify(copy.data ?? {}) === JSON.stringify(data)) return;
      // The copy as read, with its resourceVersion: if it changed meanwhile the update fails
      // (409) and the reconcile is retried.
      await configMaps.update({ ...copy, data }, { fieldManager: FIELD_MANAGER });
      return mirrored(source, name);
    });

  function mirrored(source: ConfigMap, name: string): void {
    recorder.normal(source, 'Mirrored', `copied to ${name}`);
    console.log(`mirrored ${source.metadata?.namespace}/${source.metadata?.name} -> ${name}`);
  }

  await manager.run(); // until SIGTERM or SIGINT; exit code 0 after a clean stop, 1 after a failure
  console.log('stopped');
}

main().catch((error: unknown) => {
  console.error(`configmap-mirror: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
