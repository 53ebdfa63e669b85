import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** SNAPSHOT_ROOT is `tools/codegen/snapshot`: one directory per Kubernetes version. */
export const SNAPSHOT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'snapshot');

/**
 * The files of a snapshot, relative to `snapshot/<version>/`. Every file is stable JSON
 * (sorted keys, two-space indent):
 *
 * - `version.json`: `/version` (major, minor, gitVersion only);
 * - `discovery/api.json`, `discovery/apis.json`: the legacy `/api` and `/apis` lists;
 * - `discovery/aggregated/api.json`, `discovery/aggregated/apis.json`: aggregated discovery
 *   (`apidiscovery.k8s.io/v2`) of the core and named groups;
 * - `discovery/resources/<api/v1|apis/<group>/<version>>.json`: each legacy `APIResourceList`;
 * - `openapi/index.json`: `/openapi/v3` with the content hashes dropped;
 * - `openapi/<api/v1|apis/<group>/<version>>.json`: each group version's OpenAPI v3 document.
 */
export const SNAPSHOT_FILES = {
  version: 'version.json',
  legacyCore: 'discovery/api.json',
  legacyGroups: 'discovery/apis.json',
  aggregatedCore: 'discovery/aggregated/api.json',
  aggregatedGroups: 'discovery/aggregated/apis.json',
  openapiIndex: 'openapi/index.json',
} as const;

/** groupVersionPath is the URL path of a group version below the server: `api/v1` or `apis/<g>/<v>`. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** resourceListFile is the snapshot file of a group version's legacy `APIResourceList`. */
export function resourceListFile(group: string, version: string): string {
  return `discovery/resources/${groupVersionPath(group, version)}.json`;
}

/** openapiFile is the snapshot file of a group version's OpenAPI v3 document. */
export function openapiFile(group: string, version: string): string {
  return `openapi/${groupVersionPath(group, version)}.json`;
}

/** snapshotDirectory is `snapshot/<version>` below `root`. */
export function snapshotDirectory(version: string, root: string = SNAPSHOT_ROOT): string {
  return join(root, version);
}
