import { loadKubeconfig, resolveConfig } from '@k/config';
import { createRestClient, type RestClient } from '@k/rest';
import type { APIGroupDiscoveryList } from '../openapi/discovery-types.js';
import { compareStrings } from '@k/codegen/emit';
import { openapiFile, resourceListFile, SNAPSHOT_FILES } from './snapshot-layout.js';

/** AGGREGATED_DISCOVERY_ACCEPT asks for aggregated discovery v2, as client-go does. */
const AGGREGATED_DISCOVERY_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

/** FetchSnapshotOptions say which control plane to read. */
export interface FetchSnapshotOptions {
  kubeconfigPath: string;
  context?: string;
  onProgress?: (message: string) => void;
}

/** Snapshot is the content of a snapshot directory: relative file path → JSON value. */
export interface Snapshot {
  /** version is the server's `gitVersion` without the leading `v` (e.g. `1.37.2`). */
  version: string;
  files: Map<string, unknown>;
}

interface GroupList {
  groups: { name: string; versions: { groupVersion: string; version: string }[] }[];
}

function withoutServerAddresses(document: Record<string, unknown>): Record<string, unknown> {
  // The addresses name the server's random port: drop them so snapshots are reproducible.
  const copy: Record<string, unknown> = { ...document };
  delete copy.serverAddressByClientCIDRs;
  if (Array.isArray(copy.groups)) {
    copy.groups = (copy.groups as Record<string, unknown>[]).map((group) => {
      const groupCopy = { ...group };
      delete groupCopy.serverAddressByClientCIDRs;
      return groupCopy;
    });
  }
  return copy;
}

async function getJson<T>(client: RestClient, path: string, accept?: string): Promise<T> {
  const builder = client.get().absPath(path);
  if (accept) builder.accept(accept);
  return builder.execute<T>();
}

/**
 * builtinGroupsOnly removes what is not built into kube-apiserver from aggregated discovery:
 * groups served by CustomResourceDefinitions and by aggregated (non-local) APIServices, so a
 * snapshot taken from a used cluster still describes the release alone.
 */
function builtinGroupsOnly(
  list: APIGroupDiscoveryList,
  excluded: Set<string>,
): APIGroupDiscoveryList {
  return {
    ...list,
    items: list.items.filter((group) => !excluded.has(group.metadata?.name ?? '')),
  };
}

async function nonBuiltinGroups(client: RestClient): Promise<Set<string>> {
  const excluded = new Set<string>();
  const crds = await getJson<{ items: { spec: { group: string } }[] }>(
    client,
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  );
  for (const crd of crds.items) excluded.add(crd.spec.group);
  const services = await getJson<{ items: { spec: { group?: string; service?: unknown } }[] }>(
    client,
    '/apis/apiregistration.k8s.io/v1/apiservices',
  );
  for (const service of services.items) {
    if (service.spec.service && service.spec.group) excluded.add(service.spec.group);
  }
  return excluded;
}

/**
 * fetchSnapshot reads discovery (legacy and aggregated) and the OpenAPI v3 documents of every
 * built-in group version from a control plane, normalised so that two fetches from the same
 * release are identical: random ports and content hashes are dropped, CRD and aggregated groups
 * are left out. The caller writes it with {@link writeSnapshot}.
 */
export async function fetchSnapshot(options: FetchSnapshotOptions): Promise<Snapshot> {
  const progress = options.onProgress ?? (() => {});
  const loaded = await loadKubeconfig({ explicitPath: options.kubeconfigPath });
  const client = createRestClient(
    resolveConfig(loaded, options.context ? { context: options.context } : {}),
    { throttle: 'off' },
  );
  try {
    const files = new Map<string, unknown>();
    const version = await getJson<{ major: string; minor: string; gitVersion: string }>(
      client,
      '/version',
    );
    files.set(SNAPSHOT_FILES.version, {
      major: version.major,
      minor: version.minor,
      gitVersion: version.gitVersion,
    });
    const excluded = await nonBuiltinGroups(client);

    const legacyCore = await getJson<Record<string, unknown>>(client, '/api');
    files.set(SNAPSHOT_FILES.legacyCore, withoutServerAddresses(legacyCore));
    const legacyGroups = await getJson<GroupList>(client, '/apis');
    files.set(
      SNAPSHOT_FILES.legacyGroups,
      withoutServerAddresses({
        ...legacyGroups,
        groups: legacyGroups.groups.filter((group) => !excluded.has(group.name)),
      }),
    );
    progress('discovery: aggregated');
    files.set(
      SNAPSHOT_FILES.aggregatedCore,
      await getJson<APIGroupDiscoveryList>(client, '/api', AGGREGATED_DISCOVERY_ACCEPT),
    );
    const aggregatedGroups = builtinGroupsOnly(
      await getJson<APIGroupDiscoveryList>(client, '/apis', AGGREGATED_DISCOVERY_ACCEPT),
      excluded,
    );
    files.set(SNAPSHOT_FILES.aggregatedGroups, aggregatedGroups);

    const groupVersions: [string, string][] = [['', 'v1']];
    for (const group of legacyGroups.groups) {
      if (excluded.has(group.name)) continue;
      for (const entry of group.versions) groupVersions.push([group.name, entry.version]);
    }
    groupVersions.sort((a, b) => compareStrings(a.join('/'), b.join('/')));

    const index = await getJson<{ paths: Record<string, unknown> }>(client, '/openapi/v3');
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const path of Object.keys(index.paths)) {
      const [root, group] = path.split('/');
      if ((root === 'apis' && group !== undefined && excluded.has(group)) || false) continue;
      paths[path] = { serverRelativeURL: `/openapi/v3/${path}` };
    }
    files.set(SNAPSHOT_FILES.openapiIndex, { paths });

    for (const [group, groupVersion] of groupVersions) {
      const path = group === '' ? `/api/${groupVersion}` : `/apis/${group}/${groupVersion}`;
      progress(`group version ${path.slice(1)}`);
      files.set(resourceListFile(group, groupVersion), await getJson(client, path));
      files.set(openapiFile(group, groupVersion), await getJson(client, `/openapi/v3${path}`));
    }
    return { version: version.gitVersion.replace(/^v/, ''), files };
  } finally {
    await client.dispatcher.close();
  }
}
