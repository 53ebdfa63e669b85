import type { ListPage, RestClient, Watch } from '@k/rest';
import type { PartialObjectMetadata, PartialObjectMetadataList } from './object-types.js';
import type { GetOptions, ListAllOptions, ListOptions, WatchOptions } from './request-options.js';
import type { ResourceDescriptor } from './resource-descriptor.js';

/**
 * METADATA_ACCEPT is the Accept of a metadata read, client-go's metadata client's: protobuf first
 * (a fraction of JSON's size to encode, send and decode), then JSON, then plain JSON, which is
 * what the server answers errors in. @k/rest decodes whichever the server chose.
 */
export const METADATA_ACCEPT =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
/** METADATA_LIST_ACCEPT is the Accept of a metadata list (a watch takes METADATA_ACCEPT). */
export const METADATA_LIST_ACCEPT =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/**
 * MetadataClient reads only the metadata of a resource's objects (client-go's metadata client):
 * `get`, `list`, `listAll`, `listPages` and `watch` answer `PartialObjectMetadata` (apiVersion
 * `meta.k8s.io/v1`, kind `PartialObjectMetadata`, the object's `metadata`), a fraction of the
 * bytes of whole objects. Made by `ResourceClient.asMetadata()`.
 */
export interface MetadataClient {
  readonly rest: RestClient;
  readonly descriptor: ResourceDescriptor;
  readonly namespace: string | undefined;
  /** metadataOnly is true: requests ask for `PartialObjectMetadata`. */
  readonly metadataOnly: boolean;
  get(name: string, options?: GetOptions): Promise<PartialObjectMetadata>;
  list(options?: ListOptions): Promise<PartialObjectMetadataList>;
  listAll(options?: ListAllOptions): Promise<PartialObjectMetadataList>;
  listPages(options?: ListAllOptions): AsyncIterable<ListPage<PartialObjectMetadata>>;
  watch(options?: WatchOptions): Promise<Watch<PartialObjectMetadata>>;
  inNamespace(namespace: string): MetadataClient;
}
