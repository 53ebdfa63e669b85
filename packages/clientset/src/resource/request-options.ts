/** RequestOptions are the client-side settings every call takes. */
export interface RequestOptions {
  /** signal aborts the call (and its waits and retries). */
  signal?: AbortSignal | undefined;
  /** timeoutMs bounds the call on the client and is sent as the `timeout` parameter. */
  timeoutMs?: number | undefined;
  /** maxRetries overrides the retry policy's limit for this call (0: no retries). */
  maxRetries?: number | undefined;
}

/** DryRun is `'All'` (the only value the API server accepts), or `true` for the same. */
export type DryRun = 'All' | true;

/** FieldValidation says what the server does with unknown or duplicate fields (default `Warn` on current servers). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/**
 * LabelSelectorInput is a label selector: kubectl's text (`app=web,tier!=db`) or an equality map
 * (`{ app: 'web' }` → `app=web`, keys in the order given).
 */
export type LabelSelectorInput = string | Readonly<Record<string, string>>;

/** GetOptions are the parameters of a get (`metav1.GetOptions`). */
export interface GetOptions extends RequestOptions {
  /** resourceVersion `'0'` lets the server answer from its cache. */
  resourceVersion?: string | undefined;
}

/** ListSelection selects the objects of a list, watch or deleteCollection (`metav1.ListOptions`). */
export interface ListSelection {
  labelSelector?: LabelSelectorInput | undefined;
  fieldSelector?: string | undefined;
  resourceVersion?: string | undefined;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact' | undefined;
  /** timeoutSeconds limits the call on the server (and, as client-go does, on the client). */
  timeoutSeconds?: number | undefined;
}

/** ListOptions are the parameters of a list. */
export interface ListOptions extends ListSelection, RequestOptions {
  /** limit asks for at most this many items; continue with `metadata.continue`. */
  limit?: number | undefined;
  continue?: string | undefined;
}

/** ListAllOptions are the parameters of `listAll` and `listPages`: the selection and the page size. */
export interface ListAllOptions extends ListSelection, RequestOptions {
  /** pageSize is the `limit` of each page (default 500, client-go's pager default). */
  pageSize?: number | undefined;
}

/** WatchOptions are the parameters of a watch. */
export interface WatchOptions extends ListSelection, RequestOptions {
  /** allowWatchBookmarks asks for BOOKMARK events. */
  allowWatchBookmarks?: boolean | undefined;
  /** sendInitialEvents streams the current objects first (needs `resourceVersionMatch: 'NotOlderThan'`). */
  sendInitialEvents?: boolean | undefined;
  /** idleTimeoutMs closes the watch when nothing arrives for this long (default: the client's, 5 minutes). */
  idleTimeoutMs?: number | undefined;
  /**
   * omitManagedFields decodes events without `metadata.managedFields`, skipping those bytes
   * instead of parsing them (for caches that drop them anyway; the server still sends them).
   */
  omitManagedFields?: boolean | undefined;
}

/** CreateOptions are the parameters of a create (`metav1.CreateOptions`). */
export interface CreateOptions extends RequestOptions {
  /** dryRun: the server validates and answers without persisting anything. */
  dryRun?: DryRun | undefined;
  fieldManager?: string | undefined;
  fieldValidation?: FieldValidation | undefined;
}

/** UpdateOptions are the parameters of an update (`metav1.UpdateOptions`). */
export type UpdateOptions = CreateOptions;

/** PatchOptions are the parameters of a patch (`metav1.PatchOptions`). */
export interface PatchOptions extends CreateOptions {
  /** force is only meaningful for apply patches. */
  force?: boolean | undefined;
}

/** ApplyOptions are the parameters of a server-side apply. */
export interface ApplyOptions extends RequestOptions {
  /** fieldManager owns the applied fields; required. */
  fieldManager: string;
  /** force takes over fields another manager owns instead of failing with a conflict; always sent (default false). */
  force?: boolean | undefined;
  dryRun?: DryRun | undefined;
  fieldValidation?: FieldValidation | undefined;
}

/** Preconditions must hold for a delete to happen. */
export interface Preconditions {
  uid?: string | undefined;
  resourceVersion?: string | undefined;
}

/** DeleteOptions are the body of a delete (`metav1.DeleteOptions`), sent as JSON like client-go. */
export interface DeleteOptions extends RequestOptions {
  gracePeriodSeconds?: number | undefined;
  preconditions?: Preconditions | undefined;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground' | undefined;
  /** orphanDependents is deprecated; use `propagationPolicy`. */
  orphanDependents?: boolean | undefined;
  dryRun?: DryRun | undefined;
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean | undefined;
}

/** DeleteCollectionOptions are a delete's body plus the selection of the objects to delete. */
export interface DeleteCollectionOptions extends DeleteOptions, ListSelection {
  limit?: number | undefined;
  continue?: string | undefined;
}

/** LogOptions are the parameters of `pods(ns).logs()` (`corev1.PodLogOptions`). */
export interface LogOptions extends RequestOptions {
  container?: string | undefined;
  follow?: boolean | undefined;
  previous?: boolean | undefined;
  sinceSeconds?: number | undefined;
  /** sinceTime is an RFC 3339 timestamp. */
  sinceTime?: string | undefined;
  timestamps?: boolean | undefined;
  tailLines?: number | undefined;
  limitBytes?: number | undefined;
  insecureSkipTLSVerifyBackend?: boolean | undefined;
  stream?: 'All' | 'Stdout' | 'Stderr' | undefined;
}
