import type { RestClient, Watch, WatchEvent } from '@k/rest';

const OPEN_WATCHES = new WeakMap<RestClient, Set<Watch<unknown>>>();

/**
 * trackWatch records `watch` as open on `rest` until it ends (its loop finishes, throws or is
 * left, or `close()` is called), so {@link closeWatches} can end it: the clientset that owns a
 * RestClient's transport closes its watches first, as a watch never finishes by itself the way a
 * request in flight does. Returns the watch to hand out; it behaves exactly like `watch`.
 */
export function trackWatch<T>(rest: RestClient, watch: Watch<T>): Watch<T> {
  let open = OPEN_WATCHES.get(rest);
  if (!open) {
    open = new Set();
    OPEN_WATCHES.set(rest, open);
  }
  const watches = open;
  const forget = (): void => {
    watches.delete(tracked);
  };
  const tracked: Watch<T> = {
    close(): void {
      forget();
      watch.close();
    },
    [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
      const events = watch[Symbol.asyncIterator]();
      return {
        next: () =>
          events.next().then(
            (result) => {
              if (result.done) forget();
              return result;
            },
            (error: unknown) => {
              forget();
              throw error;
            },
          ),
        return: (value?: unknown) => {
          forget();
          return events.return
            ? events.return(value)
            : Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  watches.add(tracked);
  return tracked;
}

/** closeWatches ends every watch still open on `rest` (their loops end normally). */
export function closeWatches(rest: RestClient): void {
  const open = OPEN_WATCHES.get(rest);
  if (!open) return;
  for (const watch of [...open]) watch.close();
}
