import type { Readable } from 'node:stream';
import type { ListPage, RestClient, Status, Watch } from '@k/rest';
import type { Scale } from '../generated/autoscaling/v1/types.js';
import type {
  ApplyConfiguration,
  KubernetesList,
  KubernetesObject,
  NamedPatchType,
  PatchBody,
} from './object-types.js';
import type {
  ApplyOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  ListAllOptions,
  ListOptions,
  LogOptions,
  PatchOptions,
  UpdateOptions,
  WatchOptions,
} from './request-options.js';
import type { DeleteResult } from './delete-result.js';
import type {
  AttachOptions,
  ExecOptions,
  RemoteCommandSession,
} from '../streams/remote-command.js';
import type { CopyFromPodResult, CopyOptions } from '../streams/copy.js';
import type { LogLine, LogLinesOptions } from '../streams/log-lines.js';
import type {
  PortForwarder,
  PortForwardOptions,
  PortForwardStream,
  PortForwardStreamOptions,
  PortMapping,
} from '../streams/port-forward.js';
import type { ResourceDescriptor } from './resource-descriptor.js';
import type { MetadataClient } from './metadata-client.js';

/** VerbMethods are the methods each verb of a resource brings (`patch` brings `patch` and `apply`). */
export interface VerbMethods<T extends KubernetesObject, L> {
  get: { get(name: string, options?: GetOptions): Promise<T> };
  list: {
    list(options?: ListOptions): Promise<L>;
    listAll(options?: ListAllOptions): Promise<L>;
    listPages(options?: ListAllOptions): AsyncIterable<ListPage<T>>;
  };
  watch: { watch(options?: WatchOptions): Promise<Watch<T>> };
  create: { create(object: T, options?: CreateOptions): Promise<T> };
  update: { update(object: T, options?: UpdateOptions): Promise<T> };
  patch: {
    patch<Type extends NamedPatchType>(
      name: string,
      type: Type,
      body: PatchBody<T, Type>,
      options?: PatchOptions,
    ): Promise<T>;
    apply(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
  };
  delete: { delete(name: string, options?: DeleteOptions): Promise<DeleteResult<T>> };
  deletecollection: { deleteCollection(options?: DeleteCollectionOptions): Promise<L | Status> };
}

/** StatusMethods are the methods of the `status` subresource, by verb. */
export interface StatusMethods<T extends KubernetesObject> {
  get: { getStatus(name: string, options?: GetOptions): Promise<T> };
  update: { updateStatus(object: T, options?: UpdateOptions): Promise<T> };
  patch: {
    patchStatus<Type extends NamedPatchType>(
      name: string,
      type: Type,
      body: PatchBody<T, Type>,
      options?: PatchOptions,
    ): Promise<T>;
    applyStatus(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
  };
}

/** ScaleMethods are the methods of the `scale` subresource (an `autoscaling/v1` Scale), by verb. */
export interface ScaleMethods {
  get: { getScale(name: string, options?: GetOptions): Promise<Scale> };
  update: { updateScale(name: string, scale: Scale, options?: UpdateOptions): Promise<Scale> };
  patch: {
    patchScale<Type extends NamedPatchType>(
      name: string,
      type: Type,
      body: PatchBody<Scale, Type>,
      options?: PatchOptions,
    ): Promise<Scale>;
    applyScale(
      name: string,
      configuration: ApplyConfiguration<Scale>,
      options: ApplyOptions,
    ): Promise<Scale>;
  };
}

/** LogMethods are the methods of the pods' `log` subresource. */
export interface LogMethods {
  get: {
    /** logs is one container's log as raw bytes, never reopened (see `ResourceClient.logs`). */
    logs(name: string, options?: LogOptions): Promise<Readable>;
    /** logLines is the log line by line, of one or all containers, reopened when following (see `ResourceClient.logLines`). */
    logLines(name: string, options?: LogLinesOptions): AsyncIterable<LogLine>;
  };
}

/** ExecMethods are the methods of the pods' `exec` subresource (a WebSocket, a GET). */
export interface ExecMethods {
  get: {
    exec(name: string, options: ExecOptions): Promise<RemoteCommandSession>;
    copyToPod(
      name: string,
      source: string,
      destination: string,
      options?: CopyOptions,
    ): Promise<void>;
    copyFromPod(
      name: string,
      source: string,
      destination: string,
      options?: CopyOptions,
    ): Promise<CopyFromPodResult>;
  };
}

/** AttachMethods are the methods of the pods' `attach` subresource. */
export interface AttachMethods {
  get: { attach(name: string, options?: AttachOptions): Promise<RemoteCommandSession> };
}

/** PortForwardMethods are the methods of the pods' `portforward` subresource. */
export interface PortForwardMethods {
  get: {
    portForward(
      name: string,
      ports: readonly (number | PortMapping)[],
      options?: PortForwardOptions,
    ): Promise<PortForwarder>;
    portForwardStream(
      name: string,
      port: number,
      options?: PortForwardStreamOptions,
    ): Promise<PortForwardStream>;
  };
}

type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (
  value: infer I,
) => void
  ? I
  : never;

/** Verbs is the union of the verbs a descriptor lists (every verb when it lists none). */
export type Verbs<D extends ResourceDescriptor> = D['verbs'] extends readonly (infer V)[]
  ? V
  : keyof VerbMethods<KubernetesObject, unknown>;

/** SubresourceVerbs is the union of the verbs a descriptor lists for `subresource`. */
export type SubresourceVerbs<
  D extends ResourceDescriptor,
  Subresource extends string,
> = D['subresources'] extends { readonly [Key in Subresource]: readonly (infer V)[] } ? V : never;

type Methods<Map, Verb> = UnionToIntersection<Map[Extract<Verb, keyof Map>]>;

/** ResourceClientBase is what every resource client has, whatever its verbs. */
export interface ResourceClientBase<D extends ResourceDescriptor> {
  readonly rest: RestClient;
  readonly descriptor: D;
  /** namespace is the client's namespace (`''`: every namespace), undefined when cluster-scoped. */
  readonly namespace: string | undefined;
  /** metadataOnly is true for a client made by `asMetadata()`. */
  readonly metadataOnly: boolean;
  /** asMetadata returns a client that reads only the objects' metadata (`PartialObjectMetadata`). */
  asMetadata(): MetadataClient;
}

/**
 * ResourceClientFor is the typed client of the resource `D` describes, for objects `T` and lists
 * `L`: exactly the methods of the verbs `D` lists (a resource without `deletecollection` has no
 * `deleteCollection`), plus `getStatus`/`updateStatus`/`patchStatus`/`applyStatus`,
 * `getScale`/`updateScale`/`patchScale`/`applyScale`, `logs`, `exec`, `attach` and `portForward` where
 * the subresources exist.
 * At runtime it is a `ResourceClient`.
 */
export type ResourceClientFor<
  D extends ResourceDescriptor,
  T extends KubernetesObject,
  L = KubernetesList<T>,
> = ResourceClientBase<D> &
  (D['namespaced'] extends true
    ? {
        /** inNamespace returns the same client scoped to `namespace` (`''`: every namespace). */
        inNamespace(namespace: string): ResourceClientFor<D, T, L>;
      }
    : unknown) &
  Methods<VerbMethods<T, L>, Verbs<D>> &
  Methods<StatusMethods<T>, SubresourceVerbs<D, 'status'>> &
  Methods<ScaleMethods, SubresourceVerbs<D, 'scale'>> &
  Methods<LogMethods, SubresourceVerbs<D, 'log'>> &
  Methods<ExecMethods, SubresourceVerbs<D, 'exec'>> &
  Methods<AttachMethods, SubresourceVerbs<D, 'attach'>> &
  Methods<PortForwardMethods, SubresourceVerbs<D, 'portforward'>>;
