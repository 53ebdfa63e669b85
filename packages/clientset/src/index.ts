// @k/clientset: typed clients for every built-in API group, discovery, the dynamic client and
// server-side apply. Secondary surfaces have their own subpaths: each group version
// (`@k/clientset/<group>/<version>`, with its types), `@k/clientset/discovery` (discovery
// documents, caches, REST mapping queries), `@k/clientset/typed` (what typed clients are made of,
// for generated code) and `@k/clientset/di` (the DI wiring).

// The clientset.
export { Clientset } from './clientset.js';
export type { ClientsetParts } from './clientset.js';
export { createClientset, inferClientset } from './create-clientset.js';
export type {
  ClientsetOptions,
  DiskDiscoveryCacheSettings,
  InferClientsetOptions,
} from './create-clientset.js';
export { ALL_NAMESPACES } from './group/group-version-client.js';

// Resource clients.
export { ResourceClient } from './resource/resource-client.js';
export type { MetadataClient } from './resource/metadata-client.js';
export type { DeleteResult } from './resource/delete-result.js';
export { labelSelectorText } from './resource/request-params.js';
export type { ResourceClientFor } from './resource/typed-resource-client.js';
export type {
  GroupVersionKind,
  GroupVersionResource,
  ResourceDescriptor,
} from './resource/resource-descriptor.js';
export type {
  ApplyOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  DryRun,
  FieldValidation,
  GetOptions,
  LabelSelectorInput,
  ListAllOptions,
  ListOptions,
  ListSelection,
  LogOptions,
  PatchOptions,
  Preconditions,
  RequestOptions,
  UpdateOptions,
  WatchOptions,
} from './resource/request-options.js';
export type {
  ApplyConfiguration,
  DeepPartial,
  JsonPatchOperation,
  KubernetesList,
  KubernetesObject,
  MergePatch,
  NamedPatchType,
  PartialObjectMetadata,
  PartialObjectMetadataList,
  PatchBody,
  StrategicMergePatch,
  StrategicMergePatchDirectives,
  UnstructuredObject,
} from './resource/object-types.js';

// Pod streams: exec, attach, port-forward, copy (WebSockets through the transport).
export { REMOTE_COMMAND_PROTOCOLS } from './streams/remote-command.js';
export type {
  AttachOptions,
  ExecOptions,
  ExecResult,
  RemoteCommandProtocol,
  RemoteCommandSession,
  RemoteCommandStreams,
  TerminalSize,
} from './streams/remote-command.js';

export { PORT_FORWARD_PROTOCOL, PortForwardStream } from './streams/port-forward.js';
export type {
  ForwardedPort,
  PortForwarder,
  PortForwardOptions,
  PortForwardStreamOptions,
  PortMapping,
} from './streams/port-forward.js';

export type { CopyFromPodResult, CopyOptions } from './streams/copy.js';
export type { KeepAliveOptions } from './streams/keep-alive.js';
export type { SkippedEntry } from './streams/extract-tar.js';
export type { LogLine, LogLinesOptions, LogReconnect } from './streams/log-lines.js';

// Discovery and the REST mapper.
export { DiscoveryClient } from './discovery/discovery-client.js';
export type { DiscoveryCache } from './discovery/discovery-cache.js';
export { RestMapper } from './discovery/rest-mapper.js';

// The dynamic client and manifests.
export { DynamicClient } from './dynamic/dynamic-client.js';
export type { DynamicResourceClient } from './dynamic/dynamic-client.js';
export { applyManifests, parseManifests } from './apply/apply-manifests.js';
export type {
  AppliedManifest,
  ApplyManifestsOptions,
  WaitForEstablished,
} from './apply/apply-manifests.js';

// Errors a call may expect: `await ignoreNotFound(client.delete(name))`.
export { ignoreAlreadyExists, ignoreNotFound } from './ignore-errors.js';

// What a clientset user needs from the layer below (@k/rest), so they need not install it by name.
export {
  ApiError,
  ConnectionError,
  RequestTimeoutError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  retryOnConflict,
  retryOnError,
  DEFAULT_BACKOFF,
  DEFAULT_RETRY,
  RestClient,
  WebSocketError,
} from '@k/rest';
export type {
  Backoff,
  RestClientOptions,
  RetryEvent,
  ThrottleEvent,
  RetryPolicyOptions,
  Status,
  ThrottleOption,
  Watch,
  WatchEncoding,
  WatchEvent,
  WatchEventType,
} from '@k/rest';
export type { WebSocketErrorCode } from '@k/rest/errors';

// Errors.
export { ClientsetError, ApplyConflictError, ManifestError } from './errors.js';
export type { ClientsetErrorCode, FieldConflict, KClientsetErrorCode } from './errors.js';
export { CrdNotEstablishedError, PortForwardError, RemoteCommandError } from './errors.js';
export type { CrdCondition } from './errors.js';

// The most used meta/v1 types (all of them: `@k/clientset/meta/v1`).
export type {
  Condition,
  IntOrString,
  ListMeta,
  ManagedFieldsEntry,
  MicroTime,
  ObjectMeta,
  OwnerReference,
  Quantity,
  Time,
} from './generated/meta/v1/types.js';
