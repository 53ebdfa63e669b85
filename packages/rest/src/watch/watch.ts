/** WatchEventType is the `type` of a watch event other than ERROR. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** WatchEvent is one change seen by a watch. For BOOKMARK only `metadata.resourceVersion` is meaningful. */
export interface WatchEvent<T> {
  type: WatchEventType;
  object: T;
}

/**
 * Watch is an open watch: iterate it once with `for await`. Breaking out of the loop, `close()`
 * or aborting the request's signal closes the connection. An ERROR event is thrown as an
 * `ApiError` (410 → `isGone`); the loop ends normally when the server ends the watch.
 */
export interface Watch<T> extends AsyncIterable<WatchEvent<T>> {
  close(): void;
  /**
   * encoding is how the server sent the events. Objects of a `protobuf` watch come with their
   * repeated strings shared (one string each; see `ProtobufSchema`), as a cache would make them;
   * JSON.parse shares only the shortest.
   */
  readonly encoding?: WatchEncoding | undefined;
}

/** WatchEncoding is the encoding of a watch's events: JSON lines or protobuf frames. */
export type WatchEncoding = 'json' | 'protobuf';

/**
 * WatchStreamOptions configure how `RequestBuilder.watch` opens and reads the stream (the
 * query of a watch — selectors, resource version — is the builder's).
 */
export interface WatchStreamOptions {
  /** allowWatchBookmarks asks the server for BOOKMARK events (sent as `allowWatchBookmarks=true`). */
  allowWatchBookmarks?: boolean | undefined;
  /**
   * idleTimeoutMs closes the watch with `ERR_REST_WATCH_IDLE_TIMEOUT` when nothing (no event, no
   * bookmark, no byte) arrives for this long; a busy or bookmarked watch never times out. Default:
   * the client's `watchIdleTimeoutMs` (5 minutes); 0 disables it.
   */
  idleTimeoutMs?: number | undefined;
  /**
   * omitManagedFields decodes each event's object without `metadata.managedFields`: the decoder
   * skips those bytes instead of parsing them (server-side apply bookkeeping, often half of an
   * object). For caches that drop managedFields anyway, such as an informer's default transform.
   */
  omitManagedFields?: boolean | undefined;
}
