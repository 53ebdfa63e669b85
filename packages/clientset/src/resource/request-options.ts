/** RequestOptions are the client-side settings every call takes. */
export interface RequestOptions {
  /** signal aborts the call (and its waits and retries). */
  signal?: AbortSignal;
  /** timeoutMs bounds the call on the client and is sent as the `timeout` parameter. */
  timeoutMs?: number;
  /** maxRetries overrides the retry policy's limit for this call (0: no retries). */
  maxRetries?: number;
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
  resourceVersion?: string;
}

/** ListSelection selects the objects of a list, watch or deleteCollection (`metav1.ListOptions`). */
export interface ListSelection {
  labelSelector?: LabelSelectorInput;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** timeoutSeconds limits the call on the server (and, as client-go does, on the client). */
  timeoutSeconds?: number;
}

/** ListOptions are the parameters of a list. */
export interface ListOptions extends ListSelection, RequestOptions {
  /** limit asks for at most this many items; continue with `metadata.continue`. */
  limit?: number;
  continue?: string;
}

/** ListAllOptions are the parameters of `listAll` and `listPages`: the selection and the page size. */
export interface ListAllOptions extends ListSelection, RequestOptions {
  /** pageSize is the `limit` of each page (default 500, client-go's pager default). */
  pageSize?: number;
}

/** WatchOptions are the parameters of a watch. */
export interface WatchOptions extends ListSelection, RequestOptions {
  /** allowWatchBookmarks asks for BOOKMARK events. */
  allowWatchBookmarks?: boolean;
  /** sendInitialEvents streams the current objects first (needs `resourceVersionMatch: 'NotOlderThan'`). */
  sendInitialEvents?: boolean;
  /** idleTimeoutMs closes the watch when nothing arrives for this long (default: the client's, 5 minutes). */
  idleTimeoutMs?: number;
  /**
   * omitManagedFields decodes events without `metadata.managedFields`, skipping those bytes
   * instead of parsing them (for caches that drop them anyway; the server still sends them).
   */
  omitManagedFields?: boolean;
}

/** CreateOptions are the parameters of a create (`metav1.CreateOptions`). */
export interface CreateOptions extends RequestOptions {
  /** dryRun: the server validates and answers without persisting anything. */
  dryRun?: DryRun;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
}

/** UpdateOptions are the parameters of an update (`metav1.UpdateOptions`). */
export type UpdateOptions = CreateOptions;

/** PatchOptions are the parameters of a patch (`metav1.PatchOptions`). */
export interface PatchOptions extends CreateOptions {
  /** force is only meaningful for apply patches. */
  force?: boolean;
}

/** ApplyOptions are the parameters of a server-side apply. */
export interface ApplyOptions extends RequestOptions {
  /** fieldManager owns the applied fields; required. */
  fieldManager: string;
  /** force takes over fields another manager owns instead of failing with a conflict; always sent (default false). */
  force?: boolean;
  dryRun?: DryRun;
  fieldValidation?: FieldValidation;
}

/** Preconditions must hold for a delete to happen. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** DeleteOptions are the body of a delete (`metav1.DeleteOptions`), sent as JSON like client-go. */
export interface DeleteOptions extends RequestOptions {
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** orphanDependents is deprecated; use `propagationPolicy`. */
  orphanDependents?: boolean;
  dryRun?: DryRun;
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

/** DeleteCollectionOptions are a delete's body plus the selection of the objects to delete. */
export interface DeleteCollectionOptions extends DeleteOptions, ListSelection {
  limit?: number;
  continue?: string;
}

/** LogOptions are the parameters of `pods(ns).logs()` (`corev1.PodLogOptions`). */
export interface LogOptions extends RequestOptions {
  container?: string;
  follow?: boolean;
  previous?: boolean;
  sinceSeconds?: number;
  /** sinceTime is an RFC 3339 timestamp. */
  sinceTime?: string;
  timestamps?: boolean;
  tailLines?: number;
  limitBytes?: number;
  insecureSkipTLSVerifyBackend?: boolean;
  stream?: 'All' | 'Stdout' | 'Stderr';
}
