export { startEnvironment, connectEnvironment } from './environment.js';
export { eventually } from './eventually.js';
export { createWebhookServing } from './webhooks.js';
export { EnvtestError } from './errors.js';
export type { EnvtestErrorCode } from './errors.js';
export { ENVTEST_CACHE_ENV, ENVTEST_KUBECONFIG_ENV, KUBERNETES_VERSION } from './constants.js';
export type {
  ApplyOptions,
  AuditLog,
  AuditMark,
  AuditQuery,
  AuditRecord,
  AuditWaitOptions,
  BinariesOption,
  ComponentName,
  CrdSource,
  Environment,
  EnvironmentBinaries,
  EnvironmentFaultProxy,
  EnvironmentOptions,
  EnvironmentProcess,
  EventuallyOptions,
  InstalledCrds,
  InstalledWebhooks,
  InstallWebhooksOptions,
  OwnedEnvironment,
  ProgressEvent,
  ServiceAccountUserOptions,
  TestCluster,
  TestNamespace,
  TestNamespaceDeleteOptions,
  TestNamespaceOptions,
  TestUser,
  TestUserClientsetOptions,
  TestUserOptions,
  WebhookServing,
  WebhookServingOptions,
} from './types.js';
