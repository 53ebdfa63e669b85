// @k/runtime/webhook: admission and conversion webhooks served over HTTPS by a Manager (or on
// their own). A Manager's `webhookServer()` gives the server; `validating`, `mutating` and
// `conversion` register typed handlers; `install`/`manifests` register them with the API server.
// The handler factories and configuration functions below are the same parts, for a server of
// your own or for tests.

// The server and its certificate.
export { WebhookServer } from './webhook/webhook-server.js';
export type {
  InstallWebhooksOptions,
  WebhookResource,
  WebhookServerAddress,
  WebhookServerOptions,
} from './webhook/webhook-server.js';
export type { WebhookCertificateOptions } from './webhook/serving-certificate.js';
export { createSelfSignedCertificate } from './webhook/self-signed-certificate.js';
export type {
  SelfSignedCertificate,
  SelfSignedCertificateOptions,
} from './webhook/self-signed-certificate.js';

// Admission (admission.k8s.io/v1): validate, mutate (the server computes the JSON Patch).
export { AdmissionDenied } from './errors.js';
export type { AdmissionCause, AdmissionDeniedOptions } from './errors.js';
export { admissionOperations, mutatingHandler, validatingHandler } from './webhook/admission.js';
export type {
  AdmissionContext,
  MutatingHandlers,
  ValidatingHandlers,
} from './webhook/admission.js';
export type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionStatus,
  AdmissionStatusCause,
  AdmissionUserInfo,
} from './webhook/admission-review.js';
export { createJsonPatch } from './webhook/json-patch.js';
export type { JsonPatchOperation } from './webhook/json-patch.js';

// Conversion (apiextensions.k8s.io/v1), hub and spoke, and the round-trip check for your tests.
export { conversionHandler } from './webhook/conversion.js';
export type {
  ConversionDefinition,
  ConversionHandlerOptions,
  VersionConverter,
} from './webhook/conversion.js';
export { checkRoundTrip } from './webhook/conversion-round-trip.js';
export type { RoundTripDifference } from './webhook/conversion-round-trip.js';
export type {
  ConversionRequest,
  ConversionResponse,
  ConversionResult,
  ConversionReview,
} from './webhook/conversion-review.js';

// Registration: the webhook configurations and CRD conversions, applied or as YAML.
export {
  applyWebhookConfigurations,
  webhookConfigurations,
  webhookManifests,
} from './webhook/webhook-configurations.js';
export type {
  AppliedWebhookConfigurations,
  ApplyWebhookConfigurationsOptions,
  CrdConversion,
  WebhookConfigurationOptions,
  WebhookConfigurations,
  WebhookServiceTarget,
  WebhookTarget,
} from './webhook/webhook-configurations.js';

// The contract between the server and its handlers (for a handler of your own: `handle()`).
export type {
  AdmissionOperation,
  AdmissionRegistrationOptions,
  LabelSelectorLike,
  WebhookCall,
  WebhookHandler,
  WebhookRegistration,
  WebhookReply,
} from './webhook/webhook-handler.js';
