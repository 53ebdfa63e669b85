import type { Status } from '@k/rest';

/**
 * DeleteResult says what a delete did: `gone: true` when the object no longer exists (the server
 * answered a `Status`, or the object as it was), `gone: false` when it is still there with a
 * `deletionTimestamp` — finalizers or a grace period are running; watch it or get it again to see
 * it go. `object` is what the server returned, when it returned the object.
 */
export type DeleteResult<T> =
  | { readonly gone: true; readonly object: T | undefined; readonly status: Status | undefined }
  | { readonly gone: false; readonly object: T; readonly status: undefined };

/**
 * deleteResultOf reads a DELETE answer: a `Status` (kind `Status`) means the object is gone; an
 * object with `metadata.deletionTimestamp` is still being deleted; any other object was deleted
 * and is returned as it was.
 */
export function deleteResultOf<T>(answer: T | Status): DeleteResult<T> {
  if ((answer as Status | undefined)?.kind === 'Status') {
    return { gone: true, object: undefined, status: answer as Status };
  }
  const object = answer as T;
  const metadata = (object as { metadata?: { deletionTimestamp?: unknown } }).metadata;
  return metadata?.deletionTimestamp
    ? { gone: false, object, status: undefined }
    : { gone: true, object, status: undefined };
}
