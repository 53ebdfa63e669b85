/**
 * The discovery documents the generator reads, as the API server serves them
 * (`apidiscovery.k8s.io/v2` aggregated discovery and the legacy `v1` lists). Only the fields the
 * generator uses are declared.
 */

/** GroupVersionKind as aggregated discovery writes a `responseKind` (empty group/version: same as the resource's). */
interface DiscoveryKind {
  group?: string;
  version?: string;
  kind: string;
}

/** APISubresourceDiscovery is one subresource of a resource (`status`, `scale`, `log`, …). */
interface APISubresourceDiscovery {
  subresource: string;
  responseKind?: DiscoveryKind;
  verbs: string[];
  acceptedTypes?: DiscoveryKind[];
}

/** APIResourceDiscovery is one resource of a group version. */
export interface APIResourceDiscovery {
  resource: string;
  responseKind?: DiscoveryKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource?: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

/** APIVersionDiscovery is one version of a group. */
interface APIVersionDiscovery {
  version: string;
  resources?: APIResourceDiscovery[];
  freshness?: string;
}

/** APIGroupDiscovery is one group; the core group has no name. */
interface APIGroupDiscovery {
  metadata?: { name?: string };
  versions: APIVersionDiscovery[];
}

/** APIGroupDiscoveryList is the aggregated discovery answer of `/api` or `/apis`. */
export interface APIGroupDiscoveryList {
  kind?: string;
  apiVersion?: string;
  items: APIGroupDiscovery[];
}
