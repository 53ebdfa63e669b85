import type { ListMeta, ObjectMeta } from '../generated/meta/v1/types.js';
import type { ListObject } from '@k/rest';

/** KubernetesObject is the shape every API object shares: type meta and object meta. */
export interface KubernetesObject {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMeta | undefined;
}

/**
 * UnstructuredObject is an object of any kind, as the dynamic client returns it: JSON parsed
 * once into plain objects, nothing converted (timestamps stay strings).
 */
export interface UnstructuredObject extends KubernetesObject {
  [field: string]: unknown;
}

/** KubernetesList is the shape of every list (`PodList`, `ConfigMapList`, …): @k/rest's ListObject. */
export type KubernetesList<T> = ListObject<T>;

/**
 * PartialObjectMetadata is an object of any kind with only its metadata, as the server sends it
 * to a metadata client (`meta.k8s.io/v1`; see `ResourceClient.asMetadata`).
 */
export interface PartialObjectMetadata extends KubernetesObject {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMeta | undefined;
}

/** PartialObjectMetadataList is a list of {@link PartialObjectMetadata}. */
export interface PartialObjectMetadataList extends KubernetesList<PartialObjectMetadata> {
  metadata?: ListMeta | undefined;
}

type Primitive = string | number | boolean | bigint | symbol | null | undefined;

/**
 * DeepPartial makes every field optional at every depth; list elements are deep partial too
 * (server-side apply merges associative lists by their keys).
 */
export type DeepPartial<T> = T extends Primitive
  ? T
  : T extends readonly (infer Element)[]
    ? DeepPartial<Element>[]
    : { [Key in keyof T]?: DeepPartial<T[Key]> | undefined };

/**
 * ApplyConfiguration is what server-side apply takes for `T`: any subset of its fields (deep),
 * with `apiVersion`, `kind` and `metadata.name` required (client-go's apply configurations).
 * Send only the fields you own: everything sent becomes yours.
 */
export type ApplyConfiguration<T extends KubernetesObject> = DeepPartial<
  Omit<T, 'apiVersion' | 'kind' | 'metadata'>
> & {
  apiVersion: NonNullable<T['apiVersion']>;
  kind: NonNullable<T['kind']>;
  metadata: DeepPartial<ObjectMeta> & { name: string };
};

/**
 * MergePatch is an RFC 7386 JSON merge patch of `T`: fields to set, `null` to delete; lists are
 * replaced whole. A field that is `undefined` is left out of the JSON, so it changes nothing.
 */
export type MergePatch<T> = T extends Primitive
  ? T
  : T extends readonly unknown[]
    ? T
    : { [Key in keyof T]?: MergePatch<T[Key]> | null | undefined };

/** StrategicMergePatchDirectives are the `$patch`, `$retainKeys`, `$setElementOrder/<list>` … keys of a strategic merge patch. */
export interface StrategicMergePatchDirectives {
  $patch?: 'replace' | 'merge' | 'delete' | undefined;
  [directive: `$${string}`]: unknown;
}

/**
 * StrategicMergePatch is a Kubernetes strategic merge patch of `T` (built-in kinds only; custom
 * resources answer 415): like a merge patch, but lists with a merge key (containers by `name`)
 * are merged element by element, and directives steer the merge.
 */
export type StrategicMergePatch<T> = T extends Primitive
  ? T
  : T extends readonly (infer Element)[]
    ? StrategicMergePatch<Element>[]
    : {
        [Key in keyof T]?: StrategicMergePatch<T[Key]> | null | undefined;
      } & StrategicMergePatchDirectives;

/** JsonPatchOperation is one RFC 6902 JSON patch operation; `path` is a JSON pointer (`/spec/replicas`). */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** NamedPatchType names a patch by its semantics (server-side apply has its own method). */
export type NamedPatchType = 'json' | 'merge' | 'strategic-merge';

/** PatchBody is the body a patch of `type` takes for objects of type `T`. */
export type PatchBody<T, Type extends NamedPatchType> = Type extends 'json'
  ? readonly JsonPatchOperation[]
  : Type extends 'merge'
    ? MergePatch<T>
    : StrategicMergePatch<T>;
