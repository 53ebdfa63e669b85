import type { RestClient } from '@k/rest';
import { ClientsetError } from '../errors.js';
import type { RestMapper } from '../discovery/rest-mapper.js';
import type { KubernetesObject, UnstructuredObject } from '../resource/object-types.js';
import { ResourceClient } from '../resource/resource-client.js';
import type { GroupVersionResource, ResourceDescriptor } from '../resource/resource-descriptor.js';
import {
  isPlainObject,
  NON_EMPTY_STRING,
  PLAIN_OBJECT,
  REST_CLIENT,
  withMethods,
  type ArgumentRule,
} from '../validation/argument-rules.js';
import { checkArgument } from '../validation/check-arguments.js';

/** DynamicResourceClient is a client of any resource, for untyped objects. */
export type DynamicResourceClient = ResourceClient<UnstructuredObject>;

const RESOURCE: ArgumentRule = {
  expected: '{ group, version, resource } or a resource descriptor',
  test: (value) =>
    isPlainObject(value) &&
    typeof value.group === 'string' &&
    typeof value.version === 'string' &&
    value.version !== '' &&
    ((typeof value.resource === 'string' && value.resource !== '') ||
      (typeof value.plural === 'string' && value.plural !== '')),
};

const OPTIONAL_STRING: ArgumentRule = {
  expected: 'a string',
  test: (value) => value === undefined || typeof value === 'string',
};

const OPTIONAL_MAPPER: ArgumentRule = {
  expected: 'a RestMapper',
  test: (value) => value === undefined || withMethods('', 'mappingFor').test(value),
};

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
    checkArgument(rest, REST_CLIENT, 'rest', { where: 'DynamicClient' });
    checkArgument(mapper, OPTIONAL_MAPPER, 'mapper', { where: 'DynamicClient' });
    this.rest = rest;
    this.mapper = mapper;
  }

  /**
   * resource returns the client of a resource: a `{ group, version, resource }` (every verb
   * allowed) or a discovered descriptor (its verbs checked). With `namespace` the requests are
   * namespaced (`''`: every namespace); without it a `{ group, version, resource }` is
   * cluster-wide and a namespaced descriptor uses the REST client's `defaultNamespace`.
   */
  resource(
    resource: GroupVersionResource | ResourceDescriptor,
    namespace?: string,
  ): DynamicResourceClient {
    checkArgument(resource, RESOURCE, 'resource', { where: 'dynamic resource' });
    checkArgument(namespace, OPTIONAL_STRING, 'namespace', { where: 'dynamic resource' });
    const descriptor: ResourceDescriptor = isDescriptor(resource)
      ? resource
      : {
          group: resource.group,
          version: resource.version,
          kind: '',
          plural: resource.resource,
          namespaced: namespace !== undefined,
        };
    const scoped = descriptor.namespaced ? (namespace ?? this.rest.defaultNamespace) : undefined;
    return new ResourceClient<UnstructuredObject>(this.rest, descriptor, scoped);
  }

  #mapper(): RestMapper {
    if (!this.mapper) {
      throw new ClientsetError(
        'ERR_CLIENTSET_NO_MAPPING',
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
    const context = { where: 'dynamic forKind' };
    checkArgument(apiVersion, NON_EMPTY_STRING, 'apiVersion', context);
    checkArgument(kind, NON_EMPTY_STRING, 'kind', context);
    checkArgument(namespace, OPTIONAL_STRING, 'namespace', context);
    const descriptor = await this.#mapper().mappingFor(apiVersion, kind);
    return this.resource(
      descriptor,
      descriptor.namespaced ? (namespace ?? this.rest.defaultNamespace) : undefined,
    );
  }

  /**
   * forObject returns the client for an object's kind, scoped to its namespace (else
   * `defaultNamespace`, else the REST client's) when the resource is namespaced.
   */
  async forObject(
    object: KubernetesObject,
    defaultNamespace?: string,
  ): Promise<DynamicResourceClient> {
    const context = { where: 'dynamic forObject' };
    checkArgument(object, PLAIN_OBJECT, 'the object', {
      ...context,
      code: 'ERR_CLIENTSET_INVALID_OBJECT',
    });
    checkArgument(defaultNamespace, OPTIONAL_STRING, 'defaultNamespace', context);
    if (!object.apiVersion || !object.kind) {
      throw new ClientsetError('ERR_CLIENTSET_INVALID_OBJECT', 'object has no apiVersion or kind');
    }
    return this.forKind(
      object.apiVersion,
      object.kind,
      object.metadata?.namespace || defaultNamespace || this.rest.defaultNamespace,
    );
  }
}
