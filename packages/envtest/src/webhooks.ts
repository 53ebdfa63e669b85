// Stub of the lead's skeleton; H4 implements it.
import type { WebhookServing, WebhookServingOptions } from './types.js';

/** createWebhookServing makes a serving certificate for a loopback webhook server, before any plane exists. */
export function createWebhookServing(_options?: WebhookServingOptions): Promise<WebhookServing> {
  throw new Error('not implemented yet (issue 27)');
}
