// @k/runtime/webhook: admission and conversion webhooks served over HTTPS by a Manager (or on
// their own): the server, its certificate options, and the handler contract it serves.
export { WebhookServer } from './webhook/webhook-server.js';
export type { WebhookServerAddress, WebhookServerOptions } from './webhook/webhook-server.js';
export type { WebhookCertificateOptions } from './webhook/serving-certificate.js';
export { createSelfSignedCertificate } from './webhook/self-signed-certificate.js';
export type {
  SelfSignedCertificate,
  SelfSignedCertificateOptions,
} from './webhook/self-signed-certificate.js';
export type {
  AdmissionOperation,
  AdmissionRegistrationOptions,
  LabelSelectorLike,
  WebhookCall,
  WebhookHandler,
  WebhookRegistration,
  WebhookReply,
} from './webhook/webhook-handler.js';
