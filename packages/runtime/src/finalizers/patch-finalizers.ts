import type { GetOptions, JsonPatchOperation, PatchOptions } from '@k/clientset';
import { DEFAULT_RETRY, isInvalid, isNotFound, retryOnError } from '@k/rest';
import { RuntimeError } from '../errors.js';
import { addFinalizerPatch, removeFinalizerPatch, type FinalizedObject } from './finalizers.js';

/** FinalizerClient reads and JSON-patches objects of one kind: any resource client is one (`cs.coreV1.configMaps('ns')`). */
export interface FinalizerClient<T> {
  get(name: string, options?: GetOptions): Promise<T>;
  patch(
    name: string,
    type: 'json',
    body: readonly JsonPatchOperation[],
    options?: PatchOptions,
  ): Promise<T>;
}

/** FinalizerPatchOptions configure {@link addFinalizerOnServer} and {@link removeFinalizerOnServer}. */
export interface FinalizerPatchOptions extends PatchOptions {
  /**
   * attempts bounds the patches sent while other writers keep changing the object (default 5,
   * 10 ms apart with jitter: client-go's `retry.DefaultRetry`).
   */
  attempts?: number | undefined;
}

type PatchFor = (object: FinalizedObject, finalizer: string) => JsonPatchOperation[] | undefined;

/**
 * addFinalizerOnServer adds `finalizer` to the object `object` names, with a guarded JSON patch
 * ({@link addFinalizerPatch}): when the server's object changed its finalizers meanwhile, the
 * test fails, the object is read again and the patch built anew, so a finalizer another writer
 * added at the same time is kept. Resolves with the object as the server has it (`object`
 * itself, and no request, when it already lists the finalizer). Throws the server's error
 * (`ApiError`), or `ERR_RUNTIME_CONFLICT` when `attempts` patches all lost the race.
 */
export function addFinalizerOnServer<T extends FinalizedObject>(
  client: FinalizerClient<T>,
  object: T,
  finalizer: string,
  options: FinalizerPatchOptions = {},
): Promise<T> {
  return patchFinalizer(client, object, finalizer, addFinalizerPatch, options);
}

/**
 * removeFinalizerOnServer removes `finalizer` from the object `object` names, guarded and
 * retried as {@link addFinalizerOnServer}. Resolves with the object as the server has it, or
 * `undefined` when it is gone (the last finalizer of a deleted object lets the deletion finish).
 */
export async function removeFinalizerOnServer<T extends FinalizedObject>(
  client: FinalizerClient<T>,
  object: T,
  finalizer: string,
  options: FinalizerPatchOptions = {},
): Promise<T | undefined> {
  try {
    return await patchFinalizer(client, object, finalizer, removeFinalizerPatch, options);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function patchFinalizer<T extends FinalizedObject>(
  client: FinalizerClient<T>,
  object: T,
  finalizer: string,
  patchFor: PatchFor,
  options: FinalizerPatchOptions,
): Promise<T> {
  const { attempts = 5, ...patchOptions } = options;
  const name = object.metadata?.name;
  if (!name) {
    throw new RuntimeError(
      'ERR_RUNTIME_INVALID_ARGUMENT',
      'cannot patch the finalizers of an object without metadata.name',
    );
  }
  const getOptions = { ...(options.signal ? { signal: options.signal } : {}) };
  let current = object;
  // The error of a patch that lost the race to another writer: the one error worth another try.
  let lostRace: unknown;
  try {
    return await retryOnError(
      (error) => error === lostRace,
      async () => {
        const patch = patchFor(current, finalizer);
        if (!patch) return current;
        try {
          return await client.patch(name, 'json', patch, patchOptions);
        } catch (error) {
          // A failed `test` is a 422 without causes; a 422 about the finalizer's name is not a
          // race, and the object read again then still matches what was tested.
          if (!isInvalid(error)) throw error;
          const fresh = await client.get(name, getOptions);
          if (!changedSince(current, fresh)) throw error;
          current = fresh;
          lostRace = error;
          throw error;
        }
      },
      { backoff: { ...DEFAULT_RETRY, steps: attempts }, ...getOptions },
    );
  } catch (error) {
    if (error !== lostRace) throw error;
    throw new RuntimeError(
      'ERR_RUNTIME_CONFLICT',
      `could not patch finalizer ${finalizer} of ${name}: the object changed under each of ${attempts} attempts`,
      { cause: error },
    );
  }
}

function changedSince(before: FinalizedObject, after: FinalizedObject): boolean {
  return (
    before.metadata?.resourceVersion !== after.metadata?.resourceVersion ||
    JSON.stringify(before.metadata?.finalizers ?? []) !==
      JSON.stringify(after.metadata?.finalizers ?? [])
  );
}
