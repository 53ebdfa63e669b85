import type { Clientset } from '@k/clientset';
import { EnvtestError } from './errors.js';
import type { ApplyOptions, TestUser } from './types.js';

/** DEFAULT_FIELD_MANAGER is the field manager of everything envtest applies. */
export const DEFAULT_FIELD_MANAGER = 'k-envtest';

function invalid(message: string): EnvtestError {
  return new EnvtestError('ERR_ENVTEST_INVALID_OPTIONS', message, { step: 'apply' });
}

/**
 * manifestText turns what {@link applyAs} takes into one multi-document text: a string as it is,
 * objects as one JSON document each (JSON is YAML).
 */
export function manifestText(manifests: string | readonly object[]): string {
  if (typeof manifests === 'string') return manifests;
  if (!Array.isArray(manifests)) {
    throw invalid('manifests must be YAML or JSON text, or an array of objects');
  }
  return manifests
    .map((manifest, index) => {
      if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
        throw invalid(`manifests[${index}] is not an object`);
      }
      return JSON.stringify(manifest);
    })
    .join('\n---\n');
}

function checkApplyOptions(options: ApplyOptions): void {
  if (typeof options !== 'object' || options === null)
    throw invalid('the options must be an object');
  for (const name of ['namespace', 'fieldManager'] as const) {
    const value = options[name];
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      throw invalid(`${name} must be a non-empty string`);
    }
  }
}

/**
 * applyAs server-side applies `manifests` with `user`'s clientset, in order, like
 * `kubectl apply --server-side --force-conflicts`: field manager `k-envtest` unless told otherwise,
 * namespaced objects without a namespace go to `options.namespace` (default `default`), and after
 * each CustomResourceDefinition it waits until the CRD is Established and served. What the server
 * answers stays the clientset's error (`ApiError`, `ApplyConflictError`, `ManifestError`, …).
 */
export async function applyAs(
  user: Pick<TestUser, 'clientset'>,
  manifests: string | readonly object[],
  options: ApplyOptions = {},
): Promise<void> {
  checkApplyOptions(options);
  const text = manifestText(manifests);
  const clientset: Clientset = await user.clientset();
  await clientset.applyManifests(text, {
    fieldManager: options.fieldManager ?? DEFAULT_FIELD_MANAGER,
    force: true,
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
  });
}
