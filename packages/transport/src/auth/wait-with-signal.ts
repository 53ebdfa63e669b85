/**
 * waitWithSignal resolves like `promise`, or rejects with `signal.reason` as soon as `signal`
 * aborts (the promise itself goes on: it is shared with other callers).
 */
export function waitWithSignal<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // This caller leaves at once; the shared promise must not end up rejected with no handler.
    promise.then(undefined, () => {});
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    // Handlers first: the shared promise is never left without one, whatever happens next.
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes the original rejection on
        reject(error);
      },
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
