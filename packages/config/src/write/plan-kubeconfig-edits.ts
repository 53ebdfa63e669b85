import { isDeepStrictEqual } from 'node:util';
import { KubeconfigError } from '../errors.js';
import type { LoadedKubeconfig } from '../load/load-kubeconfig.js';
import type { Kubeconfig } from '../model/kubeconfig.js';
import type { JsonObject } from '../view/encode-kubeconfig.js';
import { encodeAuthInfo, encodeCluster, encodeContext } from '../view/encode-kubeconfig.js';
import { defaultKubeconfigFile } from './default-kubeconfig-file.js';

/** EntryList names a list of named entries in a kubeconfig file. */
export type EntryList = 'clusters' | 'users' | 'contexts';

/** FieldChange sets (or, with `value` undefined, removes) one field below an entry's stanza. */
export interface FieldChange {
  path: readonly string[];
  value: unknown;
}

/**
 * KubeconfigEdit is one change to one file: a new `current-context`; an entry to add or
 * replace whole; changed fields of an existing entry (`stanza` is the whole new stanza, used
 * if the entry has vanished from the file meanwhile); or an entry to remove.
 */
export type KubeconfigEdit =
  | { kind: 'current-context'; value: string }
  | { kind: 'put-entry'; list: EntryList; name: string; stanza: JsonObject }
  | {
      kind: 'patch-entry';
      list: EntryList;
      name: string;
      changes: FieldChange[];
      stanza: JsonObject;
    }
  | { kind: 'delete-entry'; list: EntryList; name: string };

const ENCODERS = {
  clusters: encodeCluster,
  users: encodeAuthInfo,
  contexts: encodeContext,
} as const satisfies Record<EntryList, (entry: never) => JsonObject>;

/**
 * planKubeconfigEdits compares the loaded configuration with the wanted one and says which
 * file gets which edit, as client-go's ModifyConfig decides (checked against kubectl): a
 * changed or removed entry goes to the file that defined it; a new entry and a new
 * `current-context` go to {@link defaultKubeconfigFile} (the `--kubeconfig` file when given);
 * clearing `current-context` edits the first file that sets it. Only the fields that changed
 * are edited, so resolved (absolute) paths the caller did not touch are never written back.
 * Throws `ERR_CONFIG_WRITE` for preferences or top-level extensions, which it cannot write.
 */
export function planKubeconfigEdits(
  loaded: LoadedKubeconfig,
  wanted: Kubeconfig,
): Map<string, KubeconfigEdit[]> {
  const plan = new Map<string, KubeconfigEdit[]>();
  const add = (file: string, edit: KubeconfigEdit) => {
    const edits = plan.get(file) ?? [];
    edits.push(edit);
    plan.set(file, edits);
  };
  const before = loaded.config;
  if (
    !isDeepStrictEqual(before.preferences, wanted.preferences) ||
    !isDeepStrictEqual(before.extensions, wanted.extensions)
  ) {
    throw new KubeconfigError(
      'ERR_CONFIG_WRITE',
      'cannot write kubeconfig: changing preferences or top-level extensions is not supported',
    );
  }
  if (before.currentContext !== wanted.currentContext) {
    add(currentContextFile(loaded, wanted.currentContext), {
      kind: 'current-context',
      value: wanted.currentContext,
    });
  }
  for (const list of ['clusters', 'users', 'contexts'] as const) {
    const encode = ENCODERS[list] as (entry: unknown) => JsonObject;
    const origins = loaded.origins[list];
    const oldEntries: Map<string, unknown> = before[list];
    const newEntries: Map<string, unknown> = wanted[list];
    for (const [name, entry] of newEntries) {
      const stanza = encode(entry);
      const previous = oldEntries.get(name);
      if (previous === undefined) {
        add(origins.get(name) ?? defaultKubeconfigFile(loaded.precedence), {
          kind: 'put-entry',
          list,
          name,
          stanza: compact(stanza) as JsonObject,
        });
        continue;
      }
      const changes: FieldChange[] = [];
      diffJson(encode(previous), stanza, [], changes);
      if (changes.length === 0) continue;
      add(origins.get(name) ?? defaultKubeconfigFile(loaded.precedence), {
        kind: 'patch-entry',
        list,
        name,
        changes,
        stanza: compact(stanza) as JsonObject,
      });
    }
    for (const name of oldEntries.keys()) {
      if (newEntries.has(name)) continue;
      add(origins.get(name) ?? defaultKubeconfigFile(loaded.precedence), {
        kind: 'delete-entry',
        list,
        name,
      });
    }
  }
  return plan;
}

function currentContextFile(loaded: LoadedKubeconfig, value: string): string {
  const { precedence } = loaded;
  if (precedence.explicitPath || value) return defaultKubeconfigFile(precedence);
  // Clearing: client-go edits the first file in the chain that sets it.
  const setter = loaded.files.find((file) => file.config.currentContext);
  return setter?.path ?? defaultKubeconfigFile(precedence);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** diffJson lists the smallest set of field changes that turn `before` into `after`. */
function diffJson(before: unknown, after: unknown, path: string[], changes: FieldChange[]) {
  if (isObject(before) && isObject(after) && path.at(-1) !== 'extension') {
    for (const key of Object.keys(before)) {
      if (!Object.hasOwn(after, key)) changes.push({ path: [...path, key], value: undefined });
    }
    for (const key of Object.keys(after)) {
      if (!Object.hasOwn(before, key)) {
        const value = compact(after[key]);
        if (value !== undefined) changes.push({ path: [...path, key], value });
      } else diffJson(before[key], after[key], [...path, key], changes);
    }
    return;
  }
  if (!isDeepStrictEqual(before, after)) changes.push({ path, value: compact(after) });
}

/**
 * compact drops the empty defaults the encoder always emits (`null` lists, `""`, `false`) so
 * new stanzas stay as short as a person would write them. Extension values are kept verbatim.
 */
function compact(value: unknown): unknown {
  if (value === null || value === '' || value === false) return undefined;
  if (Array.isArray(value))
    return value.map((item: unknown) => (isObject(item) ? compact(item) : item));
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, entry] of Object.entries(value)) {
    const kept = key === 'extension' ? entry : compact(entry);
    if (kept !== undefined) {
      Object.defineProperty(result, key, {
        value: kept,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return result;
}
