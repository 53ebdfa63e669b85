import type { Clientset } from '@k/clientset';
import { WebhookServer } from '@k/runtime';
import { webhookManifests as renderWebhookManifests } from '@k/runtime/webhook';
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
export function webhookManifests(): Promise<string> {
  const server = registerWebAppWebhooks(new WebhookServer(), NO_CLIENTSET);
  const configurations = server.configurations({
    ...OPTIONS,
    annotations: { 'cert-manager.io/inject-ca-from': CERTIFICATE },
  });
  return renderWebhookManifests({ ...configurations, conversions: [] });
}
