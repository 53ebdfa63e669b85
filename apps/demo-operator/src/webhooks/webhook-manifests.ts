import type { Clientset } from '@k/clientset';
import { WebhookServer } from '@k/runtime';
import { registerWebAppWebhooks, WEBHOOK_CONFIGURATION_NAME } from './register-webhooks.js';

/** WEBHOOK_SERVICE is the Service of deploy/webhook-service.yaml, in front of the operator's webhook server. */
export const WEBHOOK_SERVICE = { namespace: 'demo-operator-system', name: 'demo-operator-webhook' };

/** CERTIFICATE is the cert-manager Certificate of deploy/certificate.yaml, whose CA its injector copies into `caBundle`. */
export const CERTIFICATE = `${WEBHOOK_SERVICE.namespace}/demo-operator-serving-cert`;

// Writing the manifests calls no webhook: a clientset that is never used.
const NO_CLIENTSET = new Proxy({} as Clientset, {
  get() {
    throw new Error('the webhook manifests need no clientset');
  },
});

const OPTIONS = { name: WEBHOOK_CONFIGURATION_NAME, target: { service: WEBHOOK_SERVICE } };

/** crdConversion is the `spec.conversion` the operator's conversion webhook needs (crd.yaml holds it). */
export function crdConversion(): unknown {
  const server = registerWebAppWebhooks(new WebhookServer(), NO_CLIENTSET);
  return server.configurations(OPTIONS).conversions[0]?.conversion;
}

/**
 * webhookManifests is deploy/webhooks.yaml: the operator's ValidatingWebhookConfiguration and
 * MutatingWebhookConfiguration, pointed at the webhook Service and annotated for cert-manager's
 * CA injector. Not the CRD's conversion patch `manifests()` adds: crd.yaml holds that conversion,
 * and the patch, applied by the field manager that applied crd.yaml (`kubectl apply
 * --server-side -f crd.yaml -f webhooks.yaml`: both `kubectl`), would remove the rest of the CRD.
 */
export async function webhookManifests(): Promise<string> {
  const server = registerWebAppWebhooks(new WebhookServer(), NO_CLIENTSET);
  const all = await server.manifests(OPTIONS);
  const crdPatch = all.indexOf('\n---\n# The conversion webhook');
  if (crdPatch < 0) throw new Error('webhookManifests: the CRD patch moved');
  const yaml = all.slice(0, crdPatch + 1);
  // The configurations' options have no annotations: they go under each one's name.
  const metadata = `metadata:\n  name: ${WEBHOOK_CONFIGURATION_NAME}\n`;
  const parts = yaml.split(metadata);
  if (parts.length !== 3) throw new Error('webhookManifests: the configurations’ metadata moved');
  return parts.join(
    `${metadata}  annotations:\n    cert-manager.io/inject-ca-from: ${CERTIFICATE}\n`,
  );
}
