import type { Clientset } from '@k/clientset';
import type { WebhookServer } from '@k/runtime';
import type { WebApp as WebAppV1alpha1 } from '../generated/web-app-v1alpha1.js';
import { webAppsResource, type WebApp } from '../generated/web-app-v1beta1.js';
import { defaultMemoryLimit } from './webapp-defaulting.js';
import { fromHub, toHub } from './webapp-conversion.js';
import { refuseTakenName } from './webapp-validation.js';

/** WEBHOOK_CONFIGURATION_NAME names the operator's ValidatingWebhookConfiguration and MutatingWebhookConfiguration. */
export const WEBHOOK_CONFIGURATION_NAME = 'demo-operator';

/**
 * registerWebAppWebhooks adds the WebApp's webhooks to `server`, all on v1beta1 (the API server
 * converts a v1alpha1 request for them, matchPolicy Equivalent): the validating one refuses a new
 * WebApp whose name a Deployment or Service no WebApp controls has (read through `clientset`),
 * the mutating one limits memory to its request when no limit is set, and the conversion between
 * v1alpha1 and v1beta1.
 */
export function registerWebAppWebhooks(server: WebhookServer, clientset: Clientset): WebhookServer {
  return server
    .validating<WebApp>(webAppsResource, {
      create: (webapp, context) => refuseTakenName(clientset, webapp, context.request.namespace),
    })
    .mutating<WebApp>(webAppsResource, {
      mutate: (webapp, context) => {
        if (defaultMemoryLimit(webapp))
          context.warn('spec.container.resources.limits.memory set to the memory request');
      },
    })
    .conversion<WebApp, { v1alpha1: WebAppV1alpha1 }>({
      group: webAppsResource.group,
      kind: webAppsResource.kind,
      plural: webAppsResource.plural,
      hub: webAppsResource.version,
      spokes: { v1alpha1: { toHub, fromHub } },
    });
}
