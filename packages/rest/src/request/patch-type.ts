/**
 * PatchType names how a PATCH body is interpreted, which decides its Content-Type:
 * `json` (RFC 6902 JSON Patch), `merge` (RFC 7386 JSON Merge Patch), `strategic-merge`
 * (Kubernetes strategic merge patch, built-in types only) and `apply` (server-side apply; needs a
 * field manager).
 */
export type PatchType = 'json' | 'merge' | 'strategic-merge' | 'apply';

/** PATCH_CONTENT_TYPES maps each {@link PatchType} to the Content-Type the API server expects. */
export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  'strategic-merge': 'application/strategic-merge-patch+json',
  // Server-side apply takes YAML, and JSON is YAML: the body is sent as JSON (client-go does too).
  apply: 'application/apply-patch+yaml',
};

/** JSON_CONTENT_TYPE is the Content-Type of create and update bodies and the default Accept. */
export const JSON_CONTENT_TYPE = 'application/json';

/** DEFAULT_ACCEPT is the Accept header of every request unless the builder sets another. */
export const DEFAULT_ACCEPT = 'application/json, */*';
