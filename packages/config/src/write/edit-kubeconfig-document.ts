import type { Document, Node, Pair } from 'yaml';
import { isAlias, isMap, isScalar, isSeq, YAMLMap, YAMLSeq } from 'yaml';
import { KubeconfigError } from '../errors.js';
import type { EntryList, FieldChange, KubeconfigEdit } from './plan-kubeconfig-edits.js';

const ITEM_KEYS: Record<EntryList, string> = {
  clusters: 'cluster',
  users: 'user',
  contexts: 'context',
};

/**
 * editKubeconfigDocument applies edits to a parsed kubeconfig document in place, touching only
 * the nodes that change: an existing scalar keeps its comments and quoting and only gets its
 * new value, new keys are appended to their mapping, and everything else (comments, blank
 * lines, flow or block style, key order) stays as it was. `path` is only used in errors;
 * throws `ERR_CONFIG_WRITE` when the document is not a mapping or an entry is a YAML alias.
 */
export function editKubeconfigDocument(
  document: Document,
  edits: readonly KubeconfigEdit[],
  path: string,
): void {
  const editor = new DocumentEditor(document, path);
  for (const edit of edits) editor.apply(edit);
}

class DocumentEditor {
  constructor(
    private readonly document: Document,
    private readonly path: string,
  ) {}

  apply(edit: KubeconfigEdit): void {
    if (edit.kind === 'current-context') {
      this.setField(this.root(), 'current-context', edit.value);
      return;
    }
    const list = this.list(edit.list, edit.kind !== 'delete-entry');
    if (!list) return;
    const index = this.findEntry(list, edit.name, edit.list);
    const itemKey = ITEM_KEYS[edit.list];
    if (edit.kind === 'delete-entry') {
      if (index !== -1) list.items.splice(index, 1);
      return;
    }
    const entry = index === -1 ? undefined : (list.items[index] as YAMLMap);
    if (!entry) {
      list.items.push(this.document.createNode({ name: edit.name, [itemKey]: edit.stanza }));
      return;
    }
    if (edit.kind === 'put-entry') {
      entry.set(itemKey, this.document.createNode(edit.stanza));
      return;
    }
    const stanza = this.childMap(entry, itemKey);
    for (const change of edit.changes) this.change(stanza, change);
  }

  private change(stanza: YAMLMap, change: FieldChange): void {
    const keys = [...change.path];
    const last = keys.pop();
    if (last === undefined) return;
    let map = stanza;
    for (const key of keys) {
      if (change.value === undefined && !isMap(map.get(key, true))) return;
      map = this.childMap(map, key);
    }
    if (change.value === undefined) {
      map.items = map.items.filter((pair) => keyOf(pair) !== last);
    } else this.setField(map, last, change.value);
  }

  /** setField changes a value, keeping the existing scalar node (and its comments) if any. */
  private setField(map: YAMLMap, key: string, value: unknown): void {
    const pair = lastPair(map, key);
    const existing = pair?.value;
    const scalarValue = value === null || typeof value !== 'object';
    if (isScalar(existing) && scalarValue) {
      existing.value = value;
      // A block or quoted style chosen for a string does not suit a number or boolean.
      if (typeof value !== 'string') delete existing.type;
      return;
    }
    if (pair) pair.value = this.document.createNode(value);
    else map.set(key, this.document.createNode(value));
  }

  private root(): YAMLMap {
    const contents = this.document.contents;
    if (contents === null || (isScalar(contents) && contents.value === null)) {
      const root = new YAMLMap(this.document.schema);
      this.document.contents = root;
      return root;
    }
    if (!isMap(contents)) throw this.error('the document is not a mapping');
    return contents;
  }

  private list(list: EntryList, create: boolean): YAMLSeq | undefined {
    const root = this.root();
    const node = lastPair(root, list)?.value as Node | undefined;
    if (isSeq(node)) return node;
    if (node !== undefined && !(isScalar(node) && node.value === null)) {
      throw this.error(`${list} is not a list`);
    }
    if (!create) return undefined;
    const created = new YAMLSeq(this.document.schema);
    root.set(list, created);
    return created;
  }

  private findEntry(list: YAMLSeq, name: string, listName: EntryList): number {
    return list.items.findIndex((item, index) => {
      if (isAlias(item)) {
        throw this.error(`${listName}[${index}] is a YAML alias, which cannot be edited in place`);
      }
      if (!isMap(item)) return false;
      const value = lastPair(item, 'name')?.value;
      return isScalar(value) && value.value === name;
    });
  }

  /** childMap returns the mapping under `key`, replacing a missing or null value by a new one. */
  private childMap(parent: YAMLMap, key: string): YAMLMap {
    const pair = lastPair(parent, key);
    const node = pair?.value as Node | undefined;
    if (isMap(node)) return node;
    if (isAlias(node))
      throw this.error(`"${key}" is a YAML alias, which cannot be edited in place`);
    const created = new YAMLMap(this.document.schema);
    if (pair) pair.value = created;
    else parent.set(key, created);
    return created;
  }

  private error(reason: string): KubeconfigError {
    return new KubeconfigError(
      'ERR_CONFIG_WRITE',
      `cannot update kubeconfig "${this.path}": ${reason}`,
      { path: this.path },
    );
  }
}

function keyOf(pair: Pair): unknown {
  return isScalar(pair.key) ? pair.key.value : pair.key;
}

/** lastPair finds the pair that counts when a key repeats: the last, as kubectl reads it. */
function lastPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.findLast((pair) => keyOf(pair) === key);
}
