/**
 * The runtime README's webhooks: a WebApp kind (a CRD of your own, `webapps-crd.yaml` beside this
 * file, served as `v1`, the hub and storage version, and `v1alpha1`, whose `spec.instances` is
 * v1's `spec.replicas`) gets a validating webhook (at most 10 replicas, a 422 on `spec.replicas`;
 * an image without a tag is let through with a warning), a mutating webhook (`spec.replicas`
 * defaults to 1) and a conversion webhook between its two versions. The server listens on
 * 127.0.0.1:`--webhook-port` (default 9443) with a certificate it makes itself, and installs its
 * webhook configurations and the CRD's conversion, pointed at that URL, before it runs: this is
 * for an API server on this machine (a test control plane); in a cluster the target is the
 * operator's Service and the certificate cert-manager's (see the README). The admission webhooks
 * match only the namespace `--namespace` when given; `--group` is the CRD's group (default
 * `webhooks.k.example`). `/healthz` and `/readyz` are on `--port` (default 8081), `/metrics` on
 * `--metrics-port` (default 8080); SIGTERM or Ctrl-C stops it gracefully.
 *
 *   kubectl apply -f packages/runtime/examples/webapps-crd.yaml
 *   npx tsx packages/runtime/examples/webhooks.ts [--kubeconfig=PATH] [--context=NAME] \
 *     [--webhook-port=9443] [--namespace=NAME] [--group=webhooks.k.example] [--port=8081] \
 *     [--metrics-port=8080]
 */
import { AdmissionDenied, Manager } from '@k/runtime';

const option = (name: string): string | undefined =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3);

/** WebApp is the hub version, v1. */
interface WebApp {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string };
  spec?: { image?: string | undefined; replicas?: number | undefined };
}
/** WebAppV1alpha1 is the spoke: the replicas were called instances. */
interface WebAppV1alpha1 {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string };
  spec?: { image?: string | undefined; instances?: number | undefined };
}

async function main(): Promise<void> {
  const group = option('group') ?? 'webhooks.k.example';
  const namespace = option('namespace');
  const port = Number(option('webhook-port') ?? 9443);
  const manager = await Manager.create({
    clientsetOptions: { kubeconfig: option('kubeconfig'), context: option('context') },
    probes: { port: Number(option('port') ?? 8081) },
    metricsServer: { port: Number(option('metrics-port') ?? 8080) },
    onListening: (address) => console.log(`listening ${address.serves} ${address.url}`),
  });
  const webhooks = manager.webhookServer({
    port,
    host: '127.0.0.1',
    certificate: { selfSigned: { hosts: ['127.0.0.1'] } },
  });
  const webApps = { group, version: 'v1', kind: 'WebApp', plural: 'webapps', namespaced: true };
  // Only this namespace's objects, when given (every namespace has this label).
  const scope = namespace
    ? { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } }
    : {};

  const validate = (webApp: WebApp, warn: (message: string) => void): void => {
    if ((webApp.spec?.replicas ?? 1) > 10) {
      throw new AdmissionDenied('a WebApp runs at most 10 replicas', {
        causes: [{ field: 'spec.replicas', message: 'must be at most 10' }],
      });
    }
    if (!webApp.spec?.image?.includes(':')) {
      warn(`image ${webApp.spec?.image ?? '(none)'} has no tag: it runs whatever latest is`);
    }
  };
  webhooks
    .validating<WebApp>(
      webApps,
      {
        create: (webApp, context) => validate(webApp, (message) => context.warn(message)),
        update: (webApp, _old, context) => validate(webApp, (message) => context.warn(message)),
      },
      { failurePolicy: 'Fail', timeoutSeconds: 5, ...scope },
    )
    .mutating<WebApp>(
      webApps,
      {
        mutate: (webApp) => {
          webApp.spec = { ...webApp.spec, replicas: webApp.spec?.replicas ?? 1 };
        },
      },
      { failurePolicy: 'Fail', timeoutSeconds: 5, ...scope },
    )
    .conversion<WebApp, { v1alpha1: WebAppV1alpha1 }>({
      group,
      kind: 'WebApp',
      plural: 'webapps',
      hub: 'v1',
      spokes: {
        v1alpha1: {
          // An undefined field is left out of the answer, as JSON.stringify leaves it out.
          toHub: ({ spec: { instances, ...spec } = {}, ...webApp }) => ({
            ...webApp,
            spec: { ...spec, replicas: instances },
          }),
          fromHub: ({ spec: { replicas, ...spec } = {}, ...webApp }) => ({
            ...webApp,
            spec: { ...spec, instances: replicas },
          }),
        },
      },
    });

  // The configurations and the CRD's spec.conversion, with the self-signed certificate's CA.
  await webhooks.install(manager.clientset, {
    name: `webapps.${group}`,
    target: { url: `https://127.0.0.1:${port}` },
  });
  console.log('webhooks installed');
  await manager.run(); // until SIGTERM or SIGINT; exit code 0 after a clean stop, 1 after a failure
  console.log('stopped');
}

main().catch((error: unknown) => {
  console.error(`webhooks: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
