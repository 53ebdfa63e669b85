// An in-memory API server for one resource, for unit tests of informers and controllers. The
// real server's behaviour is tested in e2e/ against kube-apiserver; this is what a reflector
// sees of it, with faults the tests choose.
import { randomUUID } from 'node:crypto';
import {
  labelSelectorText,
  type KubernetesList,
  type KubernetesObject,
  type ListOptions,
  type ResourceDescriptor,
  type WatchOptions,
} from '@k/clientset';
import { ApiError, ConnectionError, type Watch, type WatchEvent } from '@k/rest';
import { objectKey } from '../cache/object-key.js';
import { INITIAL_EVENTS_END_ANNOTATION, type ListerWatcher } from '../informer/reflector.js';
import { setOwn } from '../internal/set-own.js';

/** statusError is the `ApiError` of a failed request: `statusError(410, 'Expired')`. */
export function statusError(code: number, reason: string, message = reason): ApiError {
  return new ApiError({ kind: 'Status', status: 'Failure', code, reason, message });
}

/** connectionCut is the `ConnectionError` of a connection closed mid-stream. */
function connectionCut(): ConnectionError {
  return new ConnectionError('other side closed', {
    request: { method: 'GET', path: '/memory' },
    attempts: 1,
    mayHaveReachedServer: true,
  });
}

/** MemorySourceOptions configure a {@link MemorySource}. */
export interface MemorySourceOptions {
  /**
   * descriptor makes the source look like a @k/clientset resource client: an informer names
   * itself after it, adds its `apiVersion` and `kind` to objects and shares strings, and an
   * `InformerFactory` shares informers by it (with the source's `rest` and `namespace`).
   * Watch objects then carry the descriptor's `apiVersion` and `kind`, list items none.
   */
  descriptor?: ResourceDescriptor;
  /** rest is the client identity (default: a new one): sources given one are resources of one client. */
  rest?: object;
  /** watchList serves streaming lists (`sendInitialEvents`; default true); false answers them 422. */
  watchList?: boolean;
}

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Change is one write at one revision: the object after it (for a delete: its last state). */
interface Change<T> {
  revision: number;
  type: ChangeType;
  object: T;
  previous: T | undefined;
}

/** Backing is what the views of one source share: the objects, the revision counter, the history. */
class Backing<T> {
  /** revision is etcd's counter: every write takes the next one. */
  revision = 1;
  /** compacted is the oldest revision a watch or an exact list can start from. */
  compacted = 1;
  readonly objects = new Map<string, T>();
  /** base is the state at `compacted`; `history` the changes after it. */
  base = new Map<string, T>();
  history: Change<T>[] = [];
  readonly watches = new Set<MemoryWatch<T>>();
}

type Fault = Error | 'stall';

/** VIEW carries what a namespace view shares with its source (not part of the options users see). */
const VIEW = Symbol('view');

interface ViewOptions<T> extends MemorySourceOptions {
  [VIEW]?: { backing: Backing<T>; namespace: string; rest: object };
}

/**
 * MemorySource is an in-memory API server for one resource, a {@link ListerWatcher} as the
 * reflector uses it. Each write takes the next revision of one counter (starting at 1, like
 * etcd's) as its `resourceVersion`; watches from a revision replay the changes after it, and the
 * history since the last {@link MemorySource.compact} serves exact lists and continue tokens.
 *
 * - `list` sorts by key and pages by `limit` with continue tokens. A `resourceVersion` with a
 *   `limit` (without `resourceVersionMatch: 'NotOlderThan'`), or `resourceVersionMatch:
 *   'Exact'`, is that snapshot; anything else is the current state. A snapshot or continue
 *   token older than the last compaction answers 410 Expired, as kube-apiserver does.
 * - `watch` at `''` or `'0'` first sends every object as ADDED; with `sendInitialEvents` it ends
 *   them with the `k8s.io/initial-events-end` bookmark. From a revision it replays the changes
 *   after it, or, older than the last compaction, ends with 410 Expired (the real stream's ERROR
 *   event). BOOKMARKs go out when the test calls `bookmark()`. `omitManagedFields` is ignored:
 *   the server sends managedFields, a client decodes them away.
 * - Label selectors (`=`, `==`, `!=`, `in`, `notin`, `key`, `!key`) and field selectors on
 *   `metadata.name` and `metadata.namespace` select objects; an object that stops matching is
 *   DELETED for a watch, one that starts matching ADDED. Anything else is a 400.
 * - Writes (`create`, `update`, `delete`) are synchronous and emit watch events at once. They
 *   set `uid`, `generation` (raised when anything but metadata and status changes) and
 *   `creationTimestamp`, refuse a stale `resourceVersion` with 409 Conflict, and honour
 *   finalizers: a delete sets `deletionTimestamp`, the update that removes the last finalizer
 *   deletes. Status is written with the rest (there is no status subresource).
 * - Objects are copied in and out, iteratively: any depth, `__proto__` keys kept as data.
 *
 * Faults: `failNext(request, error)` answers the next list or watch with `error`;
 * `stallNext('list')` is a list that never answers (until its signal aborts), `stallNext('watch')`
 * a watch that opens and never delivers. `stallWatches()` makes the open watches deliver nothing
 * more (their events are lost, as on a black-holed connection), `breakWatches(error)` ends them
 * with an error (a cut connection by default), `closeWatches()` ends them normally (the server's
 * timeout), `compact()` forgets the history (resuming from an older revision then gets 410).
 *
 * `inNamespace(namespace)` is a view of the same objects, as a namespaced client is. Requests
 * (`lists`, `watches`: the options of each, in order) and faults are a view's own; objects,
 * revisions and the server's actions (`bookmark`, `closeWatches`, `breakWatches`,
 * `stallWatches`, `compact`) are shared by every view.
 */
export class MemorySource<
  T extends KubernetesObject = KubernetesObject,
> implements ListerWatcher<T> {
  readonly descriptor: ResourceDescriptor | undefined;
  /** namespace is a view's namespace (undefined: every namespace). */
  readonly namespace: string | undefined;
  /** rest is the client identity an `InformerFactory` keys informers by (shared by the views). */
  readonly rest: object;
  /** lists and watches are the options of every request made through this view, in order. */
  readonly lists: ListOptions[] = [];
  readonly watches: WatchOptions[] = [];
  readonly #backing: Backing<T>;
  readonly #watchList: boolean;
  readonly #faults: Record<'list' | 'watch', Fault[]> = { list: [], watch: [] };

  constructor(options: MemorySourceOptions = {}) {
    const view = (options as ViewOptions<T>)[VIEW];
    this.descriptor = options.descriptor;
    this.namespace = view?.namespace;
    this.rest = view?.rest ?? options.rest ?? {};
    this.#backing = view?.backing ?? new Backing<T>();
    this.#watchList = options.watchList ?? true;
  }

  /** inNamespace is a view of the objects of `namespace`; creates through it default to that namespace. */
  inNamespace(namespace: string): MemorySource<T> {
    const options: ViewOptions<T> = {
      descriptor: this.descriptor,
      watchList: this.#watchList,
      [VIEW]: { backing: this.#backing, namespace, rest: this.rest },
    };
    return new MemorySource<T>(options);
  }

  /** resourceVersion is the current revision. */
  get resourceVersion(): string {
    return String(this.#backing.revision);
  }

  /** openWatches counts the watches open now, of every view. */
  get openWatches(): number {
    return this.#backing.watches.size;
  }

  /** get returns a copy of the object under `key` (`namespace/name`, or `name`). */
  get(key: string): T | undefined {
    const object = this.#backing.objects.get(this.#fullKey(key));
    return object === undefined ? undefined : cloneTree(object);
  }

  /** objects returns copies of every object of this view, by key. */
  objects(): T[] {
    const selection = new Selection(this.namespace, [], []);
    return [...this.#backing.objects.keys()]
      .sort()
      .map((key) => this.#backing.objects.get(key)!)
      .filter((object) => selection.matches(object))
      .map((object) => cloneTree(object));
  }

  /** create stores a copy of `object` (409 AlreadyExists if its key is taken) and returns what was stored. */
  create(object: T): T {
    const stored = this.#incoming(object);
    const key = objectKey(stored);
    if (this.#backing.objects.has(key)) {
      throw statusError(409, 'AlreadyExists', `${key} already exists`);
    }
    const metadata = stored.metadata!;
    metadata.uid = randomUUID();
    metadata.generation = 1;
    metadata.creationTimestamp = timestamp();
    delete metadata.deletionTimestamp;
    return this.#write('ADDED', stored, undefined);
  }

  /**
   * update replaces the object of `object`'s key (404 if there is none; 409 Conflict if
   * `object` has a `resourceVersion` other than the stored one) and returns what was stored.
   */
  update(object: T): T {
    const stored = this.#incoming(object);
    const key = objectKey(stored);
    const current = this.#backing.objects.get(key);
    if (current === undefined) throw statusError(404, 'NotFound', `${key} not found`);
    const metadata = stored.metadata!;
    const currentMetadata = current.metadata ?? {};
    if (metadata.resourceVersion && metadata.resourceVersion !== currentMetadata.resourceVersion) {
      throw statusError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${key}: the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    metadata.uid = currentMetadata.uid;
    metadata.creationTimestamp = currentMetadata.creationTimestamp;
    if (currentMetadata.deletionTimestamp) {
      metadata.deletionTimestamp = currentMetadata.deletionTimestamp;
    } else delete metadata.deletionTimestamp;
    const specChanged = !sameTree(current, stored, ROOT_KEYS_WITHOUT_GENERATION);
    metadata.generation = (currentMetadata.generation ?? 1) + (specChanged ? 1 : 0);
    const finalized = metadata.deletionTimestamp && (metadata.finalizers ?? []).length === 0;
    return this.#write(finalized ? 'DELETED' : 'MODIFIED', stored, current);
  }

  /**
   * delete deletes the object under `key` (`namespace/name`, `name` for a cluster-scoped object
   * or within a namespace view; 404 if none) and returns its last state. An object with
   * finalizers only gets its `deletionTimestamp` (MODIFIED) until an update removes them.
   */
  delete(key: string): T {
    const current = this.#backing.objects.get(this.#fullKey(key));
    if (current === undefined) throw statusError(404, 'NotFound', `${key} not found`);
    if ((current.metadata?.finalizers ?? []).length === 0) {
      return this.#write('DELETED', cloneTree(current), current);
    }
    if (current.metadata?.deletionTimestamp) return cloneTree(current);
    const marked = cloneTree(current);
    marked.metadata!.deletionTimestamp = timestamp();
    return this.#write('MODIFIED', marked, current);
  }

  /** failNext answers the next `times` requests of this kind through this view with `error`. */
  failNext(request: 'list' | 'watch', error: Error, times = 1): void {
    for (let count = 0; count < times; count += 1) this.#faults[request].push(error);
  }

  /** stallNext: the next `times` lists never answer (until aborted); watches open and never deliver. */
  stallNext(request: 'list' | 'watch', times = 1): void {
    for (let count = 0; count < times; count += 1) this.#faults[request].push('stall');
  }

  /** bookmark sends a BOOKMARK at the current revision to every open watch that asked for them. */
  bookmark(): void {
    const resourceVersion = String(this.#backing.revision);
    for (const watch of this.#backing.watches) watch.bookmark(resourceVersion, false);
  }

  /** closeWatches ends every open watch normally, after what it was sent (the server's timeout). */
  closeWatches(): void {
    for (const watch of [...this.#backing.watches]) watch.end();
  }

  /** breakWatches ends every open watch with `error` (default: a cut connection). */
  breakWatches(error: Error = connectionCut()): void {
    for (const watch of [...this.#backing.watches]) watch.end(error);
  }

  /** stallWatches makes every open watch deliver nothing more: its later events are lost. */
  stallWatches(): void {
    for (const watch of this.#backing.watches) watch.stalled = true;
  }

  /** compact forgets the history: watches, exact lists and continue tokens before now get 410. */
  compact(): void {
    const backing = this.#backing;
    backing.base = new Map(backing.objects);
    backing.history = [];
    backing.compacted = backing.revision;
  }

  list(options: ListOptions = {}): Promise<KubernetesList<T>> {
    this.lists.push(options);
    const fault = this.#faults.list.shift();
    if (fault === 'stall') return stalled(options.signal);
    if (fault !== undefined) return Promise.reject(fault);
    // The executor runs now (the snapshot is of this moment); what it throws rejects.
    return new Promise((resolve) => resolve(this.#list(options)));
  }

  watch(options: WatchOptions = {}): Promise<Watch<T>> {
    this.watches.push(options);
    const fault = this.#faults.watch.shift();
    if (fault !== undefined && fault !== 'stall') return Promise.reject(fault);
    return new Promise((resolve) => resolve(this.#watch(options, fault === 'stall')));
  }

  #list(options: ListOptions): KubernetesList<T> {
    const selection = this.#selection(options);
    const backing = this.#backing;
    let revision = backing.revision;
    let after = '';
    let objects = backing.objects;
    if (options.continue) {
      ({ revision, after } = decodeContinue(options.continue));
      if (revision < backing.compacted) {
        throw statusError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
      objects = this.#snapshot(revision);
    } else if (isExact(options)) {
      revision = parseRevision(options.resourceVersion);
      if (revision < backing.compacted) throw tooOld(revision, backing.compacted);
      if (revision > backing.revision) {
        throw statusError(
          504,
          'Timeout',
          `Too large resource version: ${revision}, current: ${backing.revision}`,
        );
      }
      objects = this.#snapshot(revision);
    }
    const limit = options.limit ?? 0;
    const items: T[] = [];
    let last = '';
    let next: string | undefined;
    for (const key of [...objects.keys()].filter((key) => key > after).sort()) {
      const object = objects.get(key)!;
      if (!selection.matches(object)) continue;
      if (limit > 0 && items.length === limit) {
        next = encodeContinue(revision, last);
        break;
      }
      items.push(this.#listItem(object));
      last = key;
    }
    const kind = this.descriptor?.kind;
    return {
      ...(this.descriptor ? { apiVersion: apiVersionOf(this.descriptor) } : {}),
      ...(kind ? { kind: `${kind}List` } : {}),
      metadata: { resourceVersion: String(revision), ...(next ? { continue: next } : {}) },
      items,
    };
  }

  #watch(options: WatchOptions, stall: boolean): Watch<T> {
    const selection = this.#selection(options);
    if (options.sendInitialEvents) {
      if (!this.#watchList) {
        throw statusError(
          422,
          'Invalid',
          'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
        );
      }
      if (options.resourceVersionMatch !== 'NotOlderThan' || !options.allowWatchBookmarks) {
        throw statusError(
          422,
          'Invalid',
          'sendInitialEvents requires resourceVersionMatch=NotOlderThan and allowWatchBookmarks=true',
        );
      }
    } else if (options.resourceVersionMatch !== undefined) {
      throw statusError(
        422,
        'Invalid',
        'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      );
    }
    const backing = this.#backing;
    const signal = options.signal;
    // Removed when the watch ends: a reflector passes one long-lived signal to every watch.
    const onAbort = (): void => watch.end(signal?.reason as Error);
    const watch: MemoryWatch<T> = new MemoryWatch<T>(
      selection,
      options.allowWatchBookmarks === true,
      (object) => this.#watchObject(object),
      (closed) => {
        backing.watches.delete(closed);
        signal?.removeEventListener('abort', onAbort);
      },
    );
    backing.watches.add(watch);
    watch.stalled = stall;
    if (signal?.aborted) watch.end(signal.reason as Error);
    else signal?.addEventListener('abort', onAbort, { once: true });
    const requested = options.resourceVersion ?? '';
    if (options.sendInitialEvents || requested === '' || requested === '0') {
      for (const key of [...backing.objects.keys()].sort()) {
        const object = backing.objects.get(key)!;
        if (selection.matches(object)) watch.send('ADDED', object);
      }
      if (options.sendInitialEvents) watch.bookmark(String(backing.revision), true);
    } else {
      const from = parseRevision(requested);
      if (from < backing.compacted) watch.end(tooOld(from, backing.compacted));
      else for (const change of backing.history) if (change.revision > from) watch.deliver(change);
    }
    return watch;
  }

  #selection(options: ListOptions | WatchOptions): Selection {
    return new Selection(
      this.namespace,
      parseLabelSelector(labelSelectorText(options.labelSelector) ?? ''),
      parseFieldSelector(options.fieldSelector ?? ''),
    );
  }

  #snapshot(revision: number): Map<string, T> {
    const state = new Map(this.#backing.base);
    for (const change of this.#backing.history) {
      if (change.revision > revision) break;
      if (change.type === 'DELETED') state.delete(objectKey(change.object));
      else state.set(objectKey(change.object), change.object);
    }
    return state;
  }

  #fullKey(key: string): string {
    return this.namespace !== undefined && !key.includes('/') ? `${this.namespace}/${key}` : key;
  }

  /** #incoming copies a written object and checks its name and namespace. */
  #incoming(object: T): T {
    const stored = cloneTree(object);
    const metadata = (stored.metadata ??= {});
    if (this.namespace !== undefined) {
      metadata.namespace ??= this.namespace;
      if (metadata.namespace !== this.namespace) {
        throw statusError(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
    }
    if (!metadata.name)
      throw statusError(422, 'Invalid', 'metadata.name: Required value: name is required');
    return stored;
  }

  #write(type: ChangeType, object: T, previous: T | undefined): T {
    const backing = this.#backing;
    backing.revision += 1;
    object.metadata!.resourceVersion = String(backing.revision);
    const key = objectKey(object);
    if (type === 'DELETED') backing.objects.delete(key);
    else backing.objects.set(key, object);
    const change: Change<T> = { revision: backing.revision, type, object, previous };
    backing.history.push(change);
    for (const watch of backing.watches) watch.deliver(change);
    return cloneTree(object);
  }

  /** #listItem is an object as a list carries it: a copy, without apiVersion and kind for a typed resource. */
  #listItem(object: T): T {
    const item = cloneTree(object);
    if (this.descriptor) {
      delete item.apiVersion;
      delete item.kind;
    }
    return item;
  }

  /** #watchObject is an object as a watch event carries it: a copy, with the resource's apiVersion and kind. */
  #watchObject(object: T): T {
    const item = cloneTree(object);
    if (this.descriptor?.kind) {
      item.apiVersion = apiVersionOf(this.descriptor);
      item.kind = this.descriptor.kind;
    }
    return item;
  }
}

function apiVersionOf(descriptor: ResourceDescriptor): string {
  return descriptor.group ? `${descriptor.group}/${descriptor.version}` : descriptor.version;
}

function timestamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function tooOld(revision: number, compacted: number): ApiError {
  return statusError(410, 'Expired', `too old resource version: ${revision} (${compacted})`);
}

function isExact(options: ListOptions): boolean {
  if (options.resourceVersionMatch !== undefined) return options.resourceVersionMatch === 'Exact';
  const requested = options.resourceVersion ?? '';
  return requested !== '' && requested !== '0' && (options.limit ?? 0) > 0;
}

function parseRevision(resourceVersion: string | undefined): number {
  if (!/^\d+$/.test(resourceVersion ?? '')) {
    throw statusError(400, 'BadRequest', `invalid resource version: ${resourceVersion}`);
  }
  return Number(resourceVersion);
}

function encodeContinue(revision: number, after: string): string {
  return Buffer.from(JSON.stringify({ revision, after })).toString('base64url');
}

function decodeContinue(token: string): { revision: number; after: string } {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64url').toString()) as {
      revision?: unknown;
      after?: unknown;
    };
    if (typeof decoded.revision === 'number' && typeof decoded.after === 'string') {
      return { revision: decoded.revision, after: decoded.after };
    }
  } catch {
    // answered below
  }
  throw statusError(400, 'BadRequest', 'continue key is not valid');
}

function stalled<R>(signal: AbortSignal | undefined): Promise<R> {
  return new Promise<R>((_resolve, reject) => {
    if (signal?.aborted) reject(signal.reason as Error);
    signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

/** Requirement is one term of a label selector. */
interface Requirement {
  key: string;
  operator: 'in' | 'notin' | 'exists' | 'doesnotexist';
  values: string[];
}

/** FieldRequirement is one term of a field selector. */
interface FieldRequirement {
  path: 'metadata.name' | 'metadata.namespace';
  equal: boolean;
  value: string;
}

/** Selection is what a request selects: a namespace (for a view), labels, fields. */
class Selection {
  constructor(
    readonly namespace: string | undefined,
    readonly labels: Requirement[],
    readonly fields: FieldRequirement[],
  ) {}

  matches(object: KubernetesObject): boolean {
    const metadata = object.metadata ?? {};
    if (this.namespace !== undefined && metadata.namespace !== this.namespace) return false;
    const labels = metadata.labels ?? {};
    for (const { key, operator, values } of this.labels) {
      const has = Object.hasOwn(labels, key);
      const value = labels[key] ?? '';
      if (operator === 'exists' && !has) return false;
      if (operator === 'doesnotexist' && has) return false;
      if (operator === 'in' && !(has && values.includes(value))) return false;
      if (operator === 'notin' && has && values.includes(value)) return false;
    }
    for (const { path, equal, value } of this.fields) {
      const actual = (path === 'metadata.name' ? metadata.name : metadata.namespace) ?? '';
      if ((actual === value) !== equal) return false;
    }
    return true;
  }
}

const LABEL_KEY = String.raw`[A-Za-z0-9][-A-Za-z0-9_./]*`;
const LABEL_VALUE = String.raw`[-A-Za-z0-9_.]*`;

function parseLabelSelector(text: string): Requirement[] {
  const requirements: Requirement[] = [];
  for (const term of splitTerms(text)) {
    let match: RegExpExecArray | null;
    if ((match = new RegExp(`^!\\s*(${LABEL_KEY})$`).exec(term))) {
      requirements.push({ key: match[1]!, operator: 'doesnotexist', values: [] });
    } else if ((match = new RegExp(`^(${LABEL_KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(term))) {
      const values = match[3]!.split(',').map((value) => value.trim());
      requirements.push({ key: match[1]!, operator: match[2] as 'in' | 'notin', values });
    } else if (
      (match = new RegExp(`^(${LABEL_KEY})\\s*(==|=|!=)\\s*(${LABEL_VALUE})$`).exec(term))
    ) {
      const operator = match[2] === '!=' ? 'notin' : 'in';
      requirements.push({ key: match[1]!, operator, values: [match[3]!] });
    } else if ((match = new RegExp(`^(${LABEL_KEY})$`).exec(term))) {
      requirements.push({ key: match[1]!, operator: 'exists', values: [] });
    } else {
      throw statusError(400, 'BadRequest', `unable to parse requirement: ${term}`);
    }
  }
  return requirements;
}

function parseFieldSelector(text: string): FieldRequirement[] {
  return splitTerms(text).map((term) => {
    const match = /^(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!match) throw statusError(400, 'BadRequest', `field label not supported: ${term}`);
    return {
      path: match[1] as FieldRequirement['path'],
      equal: match[2] !== '!=',
      value: match[3]!.trim(),
    };
  });
}

/** splitTerms splits a selector at the commas outside parentheses. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index <= text.length; index += 1) {
    const character = text[index];
    if (character === '(') depth += 1;
    else if (character === ')') depth -= 1;
    else if (index === text.length || (character === ',' && depth === 0)) {
      const term = text.slice(start, index).trim();
      if (term) terms.push(term);
      start = index + 1;
    }
  }
  return terms;
}

type Tree = Record<string, unknown> | unknown[];

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null;
}

/** cloneTree copies a JSON tree without recursion (objects as deep as the API server stores). */
function cloneTree<V>(value: V): V {
  if (!isTree(value)) return value;
  const root: Tree = Array.isArray(value) ? [] : {};
  const pending: [Tree, Tree][] = [[value, root]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [source, target] = pair;
    for (const key of Object.keys(source)) {
      const item = (source as Record<string, unknown>)[key];
      if (isTree(item)) {
        const copy: Tree = Array.isArray(item) ? [] : {};
        pending.push([item, copy]);
        setOwn(target, key, copy);
      } else setOwn(target, key, item);
    }
  }
  return root as V;
}

/** The root members a change of which does not raise `metadata.generation`. */
const ROOT_KEYS_WITHOUT_GENERATION = new Set(['metadata', 'status']);

/** sameTree compares two JSON trees without recursion, ignoring `ignoredRootKeys` at the root. */
function sameTree(left: unknown, right: unknown, ignoredRootKeys: ReadonlySet<string>): boolean {
  const pending: [unknown, unknown, boolean][] = [[left, right, true]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [a, b, root] = pair;
    if (!isTree(a) || !isTree(b)) {
      if (a !== b) return false;
      continue;
    }
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const keys = (tree: Tree): string[] =>
      Object.keys(tree).filter((key) => !(root && ignoredRootKeys.has(key)));
    const aKeys = keys(a);
    const bKeys = keys(b);
    if (aKeys.length !== bKeys.length) return false;
    for (const key of aKeys) {
      if (!Object.hasOwn(b, key)) return false;
      pending.push([
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        false,
      ]);
    }
  }
  return true;
}

/** MemoryWatch is a watch of a {@link MemorySource}: a queue of events read by one consumer. */
class MemoryWatch<T> implements Watch<T> {
  /** stalled drops every later event, as a black-holed connection would. */
  stalled = false;
  readonly #queue: WatchEvent<T>[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  #error: Error | undefined;

  constructor(
    readonly selection: Selection,
    readonly bookmarks: boolean,
    readonly prepare: (object: T) => T,
    readonly onEnd: (watch: MemoryWatch<T>) => void,
  ) {}

  /** deliver sends what `change` is for this watch's selection: ADDED, MODIFIED, DELETED or nothing. */
  deliver(change: Change<T>): void {
    const selected =
      change.type !== 'DELETED' && this.selection.matches(change.object as KubernetesObject);
    const wasSelected =
      change.previous !== undefined && this.selection.matches(change.previous as KubernetesObject);
    if (selected) this.send(wasSelected ? 'MODIFIED' : 'ADDED', change.object);
    else if (wasSelected) this.send('DELETED', change.object);
  }

  send(type: ChangeType, object: T): void {
    this.#push({ type, object: this.prepare(object) });
  }

  bookmark(resourceVersion: string, initialEventsEnd: boolean): void {
    if (!this.bookmarks) return;
    const metadata = {
      resourceVersion,
      ...(initialEventsEnd ? { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } : {}),
    };
    this.#push({ type: 'BOOKMARK', object: { metadata } as T });
  }

  #push(event: WatchEvent<T>): void {
    if (this.#ended || this.stalled) return;
    this.#queue.push(event);
    this.#signal();
  }

  /** end finishes the stream after what is queued: normally, or with `error`. */
  end(error?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.onEnd(this);
    this.#signal();
  }

  close(): void {
    this.#queue.length = 0;
    this.end();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<T>> {
    try {
      for (;;) {
        const event = this.#queue.shift();
        if (event !== undefined) {
          yield event;
          continue;
        }
        if (this.#ended) {
          if (this.#error !== undefined) throw this.#error;
          return;
        }
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      this.close();
    }
  }
}
