import type { ScalarTag } from 'yaml';
import { Document, isScalar } from 'yaml';
import { kubectlYamlTags } from './yaml-schema.js';

/**
 * SimpleYamlValue is what {@link parseSimpleYaml} read: the same value
 * `Document.toJS({ mapAsMap: true })` gives for that text.
 */
export interface SimpleYamlValue {
  value: unknown;
}

type PlainScalarResolver = (source: string) => unknown;

// A key the fast path handles: a plain word such as `certificate-authority-data` or `tokenFile`.
const SIMPLE_KEY = /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/;
/**
 * Characters the fast path leaves to the full parser wherever they appear: tab and CR; NEL,
 * LS and PS, which YAML 1.1 (and kubectl) count as line breaks; the byte-order mark; and the
 * characters the full parser rejects (C0 and C1 controls, DEL, U+FFFE, U+FFFF, lone surrogates).
 * Other Unicode spaces (U+00A0, U+2000–U+200A, U+3000, …) are content to YAML, and to the
 * fast path: it only ever skips or trims U+0020.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNHANDLED_CHARACTER = /[\x00-\x08\t\x0B-\x1F\x7F-\x9F\u2028\u2029\ufeff\ufffe\uffff]|\p{Cs}/u;
// A plain scalar may not start with an indicator; `-` is fine before a non-space (`--region`).
const INDICATOR_START = /^(?:[?:,[\]{}#&*!|>'"%@`]|-(?:\s|$))/;
// Kubeconfigs nest a few levels; deeper text goes to the full parser, which limits depth.
const MAX_DEPTH = 64;

/**
 * Frame is an open block collection: the column its entries start at and the value it builds.
 * `pending` is the entry whose value is on the following lines (or null when none are deeper).
 */
interface Frame {
  column: number;
  collection: Map<string, unknown> | unknown[];
  pending?: string | number;
}

/**
 * parseSimpleYaml reads the block YAML that kubectl writes and people mostly edit — mappings
 * and sequences by indentation, one-line plain and quoted scalars, `{}`, `[]`, comments — in
 * one pass over the lines, several times faster than the yaml library. For anything else
 * (flow collections, anchors, aliases, tags, block or multi-line scalars, escapes, tabs, CR,
 * document markers, quoted or non-string keys) it returns undefined and the caller uses the
 * full parser. The contract, tested against that parser: it never accepts a text that the
 * full parser reads differently or rejects.
 */
export function parseSimpleYaml(text: string): SimpleYamlValue | undefined {
  try {
    return parseLines(text, resolvePlainScalar);
  } catch {
    return undefined; // a scalar the full parser would report: let it
  }
}

// The full parser's scalar tags (YAML 1.1 as kubectl reads it), to type plain scalars alike.
const SCALAR_TAGS = new Document(null, { version: '1.1', customTags: kubectlYamlTags }).schema.tags
  .filter((tag): tag is ScalarTag => !('collection' in tag && tag.collection))
  .filter((tag) => tag.default === true && tag.test !== undefined);

/**
 * resolvePlainScalar types a plain scalar as the yaml library's composer does: the first
 * default tag whose test matches resolves it; none leaves it a string.
 */
function resolvePlainScalar(source: string): unknown {
  const tag = SCALAR_TAGS.find((candidate) => candidate.test?.test(source));
  if (!tag) return source;
  const resolved = tag.resolve(
    source,
    (message) => {
      throw new Error(message);
    },
    {},
  );
  return isScalar(resolved) ? resolved.value : resolved;
}

function parseLines(text: string, resolvePlain: PlainScalarResolver): SimpleYamlValue | undefined {
  if (UNHANDLED_CHARACTER.test(text)) return undefined;
  const stack: Frame[] = [];
  let root: Map<string, unknown> | undefined;
  for (const line of text.split('\n')) {
    if (stack.length > MAX_DEPTH) return undefined;
    let indent = 0;
    while (line.charCodeAt(indent) === 0x20) indent++;
    if (indent === line.length || line.charCodeAt(indent) === 0x23) continue; // blank, # comment
    let content = trimSpacesEnd(line.slice(indent));
    if (content === '-' || content.startsWith('- ')) {
      const after = content.slice(1);
      content = trimSpacesStart(after);
      const spaces = after.length - content.length;
      if (content.startsWith('- ') || content === '-') return undefined; // `- - x`
      if (!root) return undefined; // a sequence at the root: leave it to the full parser
      // The entry's own content starts after the dash and its spaces.
      if (!placeLine(stack, indent, true)) return undefined;
      const sequence = stack.at(-1);
      if (!sequence || !Array.isArray(sequence.collection)) return undefined;
      if (content === '') {
        sequence.collection.push(null);
        sequence.pending = sequence.collection.length - 1;
        continue;
      }
      const entry = parseEntry(content, resolvePlain);
      if (!entry) return undefined;
      if (entry.kind === 'scalar') {
        sequence.collection.push(entry.value);
        continue;
      }
      const map = new Map<string, unknown>();
      sequence.collection.push(map);
      stack.push({ column: indent + 1 + spaces, collection: map });
      setKey(stack, entry.key, entry.value);
      continue;
    }
    if (!root) {
      if (indent !== 0) return undefined;
      root = new Map();
      stack.push({ column: 0, collection: root });
    } else if (!placeLine(stack, indent, false)) {
      return undefined;
    }
    const frame = stack.at(-1);
    if (!frame || !(frame.collection instanceof Map)) return undefined;
    const entry = parseEntry(content, resolvePlain);
    if (!entry || entry.kind === 'scalar') return undefined;
    setKey(stack, entry.key, entry.value);
  }
  for (const frame of stack) closePending(frame);
  return { value: root ?? null };
}

/** Entry is one line's content: `key: value`, `key:` (value below), or a lone scalar. */
type Entry = { kind: 'key'; key: string; value: unknown } | { kind: 'scalar'; value: unknown };

/** A marker for "the value is on the following lines". */
const BELOW = Symbol('below');

function parseEntry(content: string, resolvePlain: PlainScalarResolver): Entry | undefined {
  const colon = keyEnd(content);
  if (colon === -1) {
    const value = parseScalar(content, resolvePlain);
    return value === undefined ? undefined : { kind: 'scalar', value };
  }
  const key = content.slice(0, colon);
  // Keys the yaml library would read as another type (`yes`, `1`, `null`) stay with it.
  if (!SIMPLE_KEY.test(key) || key.length > 1000 || resolvePlain(key) !== key) return undefined;
  const rest = trimSpacesStart(content.slice(colon + 1));
  if (rest === '') return { kind: 'key', key, value: BELOW };
  const value = parseScalar(rest, resolvePlain);
  return value === undefined ? undefined : { kind: 'key', key, value };
}

/** keyEnd finds the `:` that ends a simple key: followed by a space or the end of the line. */
function keyEnd(content: string): number {
  if (!SIMPLE_KEY.test(content.charAt(0))) return -1;
  for (let index = 1; index < content.length; index++) {
    const code = content.charCodeAt(index);
    if (code === 0x3a) {
      const next = content.charCodeAt(index + 1);
      if (Number.isNaN(next) || next === 0x20) return index;
    } else if (code === 0x20) {
      return -1; // a space before any `: `: not a simple key
    }
  }
  return -1;
}

/** parseScalar reads a one-line value; undefined when the full parser must decide. */
function parseScalar(source: string, resolvePlain: PlainScalarResolver): unknown {
  if (source === '{}') return new Map();
  if (source === '[]') return [];
  const quote = source.charAt(0);
  if (quote === '"' || quote === "'") {
    const inner = source.slice(1, -1);
    // One line, closed at its end, no escapes (`\` in "", '' in ''): the text is the value.
    if (source.length < 2 || !source.endsWith(quote) || inner.includes(quote)) return undefined;
    if (quote === '"' && inner.includes('\\')) return undefined;
    return inner;
  }
  if (INDICATOR_START.test(source) || source.includes(': ') || source.endsWith(':')) {
    return undefined;
  }
  if (source.includes(' #')) return undefined; // a trailing comment: leave it to the parser
  return resolvePlain(source);
}

/**
 * placeLine closes the collections a line at `indent` is not part of and leaves the stack
 * with the collection it belongs to on top, opening the pending entry's value when the line
 * is deeper (or a sequence at its key's column). False when the indentation fits nothing.
 */
function placeLine(stack: Frame[], indent: number, dash: boolean): boolean {
  const top = stack.at(-1);
  if (top?.pending !== undefined) {
    const deeper = indent > top.column;
    // A mapping's key may have its sequence at the key's own column (`users:` / `- name:`).
    const compact = dash && indent === top.column && top.collection instanceof Map;
    if (deeper || compact) {
      const collection: Map<string, unknown> | unknown[] = dash ? [] : new Map();
      assign(top, top.pending, collection);
      top.pending = undefined;
      stack.push({ column: indent, collection });
      return true;
    }
    closePending(top);
  }
  while (stack.length > 0) {
    const frame = stack.at(-1)!;
    if (frame.column > indent) {
      closePending(frame);
      stack.pop();
      continue;
    }
    // A sequence at its parent key's column ends at the next key of that mapping.
    if (frame.column === indent && !dash && Array.isArray(frame.collection)) {
      closePending(frame);
      stack.pop();
      continue;
    }
    break;
  }
  const frame = stack.at(-1);
  if (!frame || frame.column !== indent) return false;
  return dash ? Array.isArray(frame.collection) : frame.collection instanceof Map;
}

function setKey(stack: Frame[], key: string, value: unknown) {
  const frame = stack.at(-1)!;
  const map = frame.collection as Map<string, unknown>;
  if (value === BELOW) {
    // A repeated key keeps its first position, as toJS does with Map.set.
    map.set(key, null);
    frame.pending = key;
  } else {
    map.set(key, value);
  }
}

function assign(frame: Frame, key: string | number, value: unknown) {
  if (frame.collection instanceof Map) frame.collection.set(key as string, value);
  else frame.collection[key as number] = value;
}

function closePending(frame: Frame) {
  frame.pending = undefined; // the placeholder already holds null
}

// YAML's white space in block context is U+0020 (tabs are left to the full parser); String's
// trim() also removes U+00A0, U+3000, U+FEFF and other Unicode spaces, which YAML keeps.
function trimSpacesStart(text: string): string {
  let start = 0;
  while (text.charCodeAt(start) === 0x20) start++;
  return text.slice(start);
}

function trimSpacesEnd(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x20) end--;
  return text.slice(0, end);
}
