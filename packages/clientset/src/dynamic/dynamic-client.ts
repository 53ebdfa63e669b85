import type { RestClient } from '@k/rest';
import { ClientsetError } from '../errors.js';
import type { RestMapper } from '../discovery/rest-mapper.js';
import type { KubernetesObject, UnstructuredObject } from '../resource/object-types.js';
import { ResourceClient } from '../resource/resource-client.js';
import type { GroupVersionResource, ResourceDescriptor } from '../resource/resource-descriptor.js';

/** DynamicResourceClient is a client of any resource, for untyped objects. */
export type DynamicResourceClient = ResourceClient<UnstructuredObject>;

function isDescriptor(
  value: GroupVersionResource | ResourceDescriptor,
): value is ResourceDescriptor {
  return 'plural' in value;
}

/**
 * DynamicClient reaches any resource — built-in, aggregated or custom — without generated types
 * (client-go's dynamic client): objects are plain parsed JSON (`UnstructuredObject`), every verb
 * of {@link ResourceClient} is available (the server decides), and requests and answers are
 * JSON. Name the resource directly (`resource(gvr, namespace)`), or let the REST mapper find it
 * from a kind or an object (`forKind`, `forObject`).
 */
export class DynamicClient {
  readonly rest: RestClient;
  readonly mapper: RestMapper | undefined;

  constructor(rest: RestClient, mapper?: RestMapper) {
    this.rest = rest;
    this.mapper = mapper;
  }

  /**
   * resource returns the client of a resource: a `{ group, version, resource }` (every verb
   * allowed) or a discovered descriptor (its verbs checked). With `namespace` the requests are
   * namespaced (`''`: every namespace); without it they are cluster-wide.
   */
  resource(
    resource: GroupVersionResource | ResourceDescriptor,
    namespace?: string,
  ): DynamicResourceClient {
    const descriptor: ResourceDescriptor = isDescriptor(resource)
      ? resource
      : {
          group: resource.group,
          version: resource.version,
          kind: '',
          plural: resource.resource,
          namespaced: namespace !== undefined,
        };
    const scoped = descriptor.namespaced ? (namespace ?? '') : undefined;
    return new ResourceClient<UnstructuredObject>(this.rest, descriptor, scoped);
  }

  #mapper(): RestMapper {
    if (!this.mapper) {
      throw new ClientsetError(
        'ERR_NO_MAPPING',
        'this dynamic client has no REST mapper; name the resource instead',
      );
    }
    return this.mapper;
  }

  /** forKind returns the client of the resource that holds `kind` in `apiVersion`. */
  async forKind(
    apiVersion: string,
    kind: string,
    namespace?: string,
  ): Promise<DynamicResourceClient> {
    const descriptor = await this.#mapper().mappingFor(apiVersion, kind);
    return this.resource(descriptor, descriptor.namespaced ? (namespace ?? 'default') : undefined);
  }

  /**
   * forObject returns the client for an object's kind, scoped to its namespace (else
   * `defaultNamespace`, else `default`) when the resource is namespaced.
   */
  async forObject(
    object: KubernetesObject,
    defaultNamespace?: string,
  ): Promise<DynamicResourceClient> {
    if (!object.apiVersion || !object.kind) {
      throw new ClientsetError('ERR_INVALID_OBJECT', 'object has no apiVersion or kind');
    }
    return this.forKind(
      object.apiVersion,
      object.kind,
      object.metadata?.namespace || defaultNamespace || 'default',
    );
  }
}
