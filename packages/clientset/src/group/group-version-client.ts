import type { RestClient } from '@k/rest';
import { ResourceClient } from '../resource/resource-client.js';
import type { ResourceDescriptor } from '../resource/resource-descriptor.js';

/** GroupVersionDefinition is a group version and its resources, by the client method that returns each. */
export interface GroupVersionDefinition {
  readonly group: string;
  readonly version: string;
  readonly resources: Readonly<Record<string, ResourceDescriptor>>;
}

/** ALL_NAMESPACES names every namespace where a namespaced client takes one (client-go's `NamespaceAll`). */
export const ALL_NAMESPACES = '';

/**
 * createGroupVersionClient builds a group-version client from its definition: one method per
 * resource returning a `ResourceClient` — `(namespace?)` for namespaced resources (none: the REST
 * client's `defaultNamespace`, the context's, as kubectl; {@link ALL_NAMESPACES}: every
 * namespace), `()` for cluster-scoped ones. The generated `create<Group><Version>Client`
 * functions call it with their definition and type the result; it holds no state of its own.
 */
export function createGroupVersionClient<Client>(
  rest: RestClient,
  definition: GroupVersionDefinition,
): Client {
  const client: Record<string, (namespace?: string) => ResourceClient> = {};
  for (const [method, descriptor] of Object.entries(definition.resources)) {
    client[method] = descriptor.namespaced
      ? (namespace?: string) =>
          new ResourceClient(rest, descriptor, namespace ?? rest.defaultNamespace)
      : () => new ResourceClient(rest, descriptor);
  }
  return Object.freeze(client) as Client;
}
