export {
  assetsDirectory,
  MINIMUM_KUBERNETES_VERSION,
  readKubernetesVersion,
  resolveBinaries,
} from './binary-sources.js';
export type {
  AssetsDirectoryOptions,
  BinarySource,
  ControlPlaneBinaries,
  ResolveBinariesOptions,
  ResolvedBinaries,
} from './binary-sources.js';
export { ensureBinaries } from './build.js';
export { main as runCli } from './cli.js';
export type { CliIdentity } from './cli.js';
export type { Binaries, EnsureBinariesOptions } from './build.js';
export { verifyCacheEntry } from './cache-entry.js';
export type { BuildStamp } from './cache-entry.js';
export { goBuildEnvironment, readGoEnvironment } from './go-environment.js';
export type { GoEnvironment } from './go-environment.js';
export { cacheKey, resolveCacheRoot, BINARY_NAMES } from './cache-layout.js';
export type { BinaryName, CacheKeyParts } from './cache-layout.js';
export { readControlPlaneState } from './connection.js';
export type { ControlPlaneConnection, ControlPlaneState, ControlPlaneUsers } from './connection.js';
export { COMPONENT_ORDER, startControlPlane } from './control-plane.js';
export { freePort } from './free-port.js';
export { DEFAULT_NODES } from './control-plane.js';
export type {
  ComponentName,
  ControlPlane,
  ControlPlanePorts,
  StartControlPlaneOptions,
  StartedProcess,
} from './control-plane.js';
export { FaultProxy } from './fault-proxy.js';
export type { FaultProxyMode } from './fault-proxy.js';
export {
  AUDIT_POLICY,
  AuditLogReader,
  permissionOf,
  readAuditLog,
  readAuditLogFrom,
  waitForAuditRecords,
} from './audit-log.js';
export type { AuditFilter, AuditLogRead, AuditLogReaderOptions, AuditRecord } from './audit-log.js';
export { ControlPlaneError } from './errors.js';
export type { ControlPlaneErrorCode } from './errors.js';
export { kubeRequest } from './kube-request.js';
export { renderKubeconfig, writeKubeconfig } from './kubeconfig.js';
export type { KubeconfigOptions, KubeconfigUser } from './kubeconfig.js';
export type { KubeRequestCredentials, KubeRequestOptions, KubeResponse } from './kube-request.js';
export {
  CLIENT_EXTENSIONS,
  distinguishedName,
  generateKey,
  generatePki,
  issueClientCertificate,
  servingExtensions,
  signCertificate,
} from './pki.js';
export type {
  ClientIdentity,
  IssuedClientCertificate,
  Pki,
  SignCertificateOptions,
} from './pki.js';
export { WEBHOOK_SANS, WebhookPki, webhookSubjectAltNames } from './webhook-pki.js';
export type { WebhookPkiOptions } from './webhook-pki.js';
export { formatProgress, stderrProgress, stderrProgressAs, silentProgress } from './progress.js';
export type { ProgressEvent, ProgressSink } from './progress.js';
export { KUBERNETES_VERSION } from './release.js';
export {
  KUBECONFIG_ENV,
  connectionFromEnvironment,
  createTestNamespace,
  uniqueNamespaceName,
} from './test-namespace.js';
export type { CreateTestNamespaceOptions, TestNamespace } from './test-namespace.js';
