import { checkString, fail } from '../argument-checks.js';

import type { Document, Node } from 'yaml';
import {
  isAlias,
  isCollection,
  isDocument,
  isNode,
  isPair,
  LineCounter,
  parseDocument,
  visit,
} from 'yaml';
import { KubeconfigError } from '../errors.js';
import { decodeKubeconfig } from './decode-kubeconfig.js';
import { hideKubeconfigFileSecrets } from './hide-kubeconfig-secrets.js';
import type { Kubeconfig } from './kubeconfig.js';
import { parseSimpleYaml } from './parse-simple-yaml.js';
import { kubectlYamlTags } from './yaml-schema.js';

/**
 * The most YAML nodes aliases may repeat in one document: stops "billion laughs" and wide
 * anchors alike. The yaml library's maxAliasCount bounds how often aliases are used, not how
 * much they repeat (a 200 KB file whose anchor holds 100,000 items, aliased 500 times, took
 * 14 s and 400 MB to decode); it gets the same bound, so that a file using one small anchor
 * thousands of times loads, as it does in kubectl.
 */
export const MAX_ALIASED_NODES = 1_000_000;

/**
 * MAX_KUBECONFIG_DEPTH is how deep a kubeconfig may nest, the document itself being level 1. Real
 * files nest fewer than 10 levels (extensions hold free-form data); the yaml library runs out of
 * stack printing about 640 levels and parsing about 940, so a deeper file that loaded could not be
 * printed or written back. kubectl allows 10,000.
 */
const MAX_KUBECONFIG_DEPTH = 256;

/**
 * Characters outside YAML's printable set, which kubectl's reader rejects: C0 and C1 controls
 * other than tab, LF, CR and NEL, DEL, U+FFFE, U+FFFF and unpaired surrogates.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_CHARACTER = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|\p{Cs}/u;

/**
 * KubeconfigFile is one parsed kubeconfig file: its decoded model and the YAML document it
 * came from (kept so writes can change one value and leave comments and layout intact).
 */
export interface KubeconfigFile {
  path: string;
  config: Kubeconfig;
  document: Document;
}

/**
 * parseKubeconfig parses kubeconfig text (YAML 1.1 as kubectl reads it, or JSON). A UTF-8 or
 * UTF-16 byte-order mark is honoured; Unicode spaces such as U+00A0 are content, as in kubectl,
 * and a lone CR, NEL, LS and PS end lines (see {@link parseKubeconfigDocument}). `path` is only used in error messages. Throws a
 * {@link KubeconfigError} (`ERR_CONFIG_PARSE` or `ERR_CONFIG_DUPLICATE_NAME`) whose
 * message gives a line and column but no file content, so no secret can leak through it. The
 * YAML library's own error is not kept as `cause`: its message can quote the source.
 */
export function parseKubeconfig(source: string | Uint8Array, path = '<input>'): KubeconfigFile {
  if (typeof source !== 'string' && !(source instanceof Uint8Array)) {
    fail('parseKubeconfig', 'source', 'the text of a kubeconfig, as a string or bytes', source);
  }
  checkString('parseKubeconfig', 'path', path);
  return parseKubeconfigSource(source, path, true);
}

/**
 * parseKubeconfigWithFullParser is {@link parseKubeconfig} without the fast reader: every text
 * goes through the yaml library. Tests hold the two to the same result, or the same error.
 */
export function parseKubeconfigWithFullParser(
  source: string | Uint8Array,
  path = '<input>',
): KubeconfigFile {
  return parseKubeconfigSource(source, path, false);
}

function parseKubeconfigSource(
  source: string | Uint8Array,
  path: string,
  fastPath: boolean,
): KubeconfigFile {
  const text = typeof source === 'string' ? stripBom(source) : decodeText(source, path);
  const simple = !fastPath || FORBIDDEN_CHARACTER.test(text) ? undefined : parseSimpleYaml(text);
  if (simple) {
    // The fast path reads only what the full parser reads the same way (checks on the text
    // itself, like the one for control characters, must also guard it); the YAML document,
    // needed to write back, is parsed when first asked for.
    checkDepth(simple.value, path);
    const config = decodeKubeconfig(simple.value, path);
    let document: Document | undefined;
    return hideKubeconfigFileSecrets({
      path,
      config,
      get document() {
        return (document ??= parseKubeconfigDocument(text, path));
      },
    });
  }
  const document = parseKubeconfigDocument(text, path);
  let value: unknown;
  try {
    if (aliasesRepeatTooMuch(document, MAX_ALIASED_NODES))
      throw new Error('Excessive alias count indicates a resource exhaustion attack');
    value = document.toJS({ mapAsMap: true, maxAliasCount: MAX_ALIASED_NODES });
  } catch (error) {
    throw new KubeconfigError(
      'ERR_CONFIG_PARSE',
      `error loading config file "${path}": ${safeYamlMessage(error)}`,
      { path },
    );
  }
  checkDepth(value, path);
  return hideKubeconfigFileSecrets({ path, config: decodeKubeconfig(value, path), document });
}

/** checkDepth throws `ERR_CONFIG_PARSE` when `value` nests deeper than {@link MAX_KUBECONFIG_DEPTH}. */
function checkDepth(value: unknown, path: string): void {
  // A list of what is left to visit, not recursion: the check must not overflow the stack itself.
  const pending: [node: object, depth: number][] = [];
  const visit = (node: unknown, depth: number) => {
    if (typeof node === 'object' && node !== null && !(node instanceof Uint8Array))
      pending.push([node, depth]);
  };
  visit(value, 1);
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const [node, depth] = entry;
    if (depth > MAX_KUBECONFIG_DEPTH) {
      throw new KubeconfigError(
        'ERR_CONFIG_PARSE',
        `error loading config file "${path}": yaml: nested deeper than ${MAX_KUBECONFIG_DEPTH} levels`,
        { path },
      );
    }
    if (node instanceof Map) {
      for (const [key, child] of node) {
        visit(key, depth + 1);
        visit(child, depth + 1);
      }
    } else for (const child of Object.values(node)) visit(child, depth + 1);
  }
}

/**
 * Line breaks of YAML 1.1, which kubectl's reader honours and the yaml library (YAML 1.2) reads
 * as content: a CR not followed by LF, NEL, LS and PS. Each is one UTF-16 unit, like the LF
 * that replaces it, so offsets into the text stay valid.
 */
const YAML_11_LINE_BREAK = /\r(?!\n)|[\u0085\u2028\u2029]/g;

/**
 * parseKubeconfigDocument parses text into a YAML document, or throws a KubeconfigError. Line
 * breaks are YAML 1.1's, as in kubectl: a lone CR, NEL (U+0085), LS (U+2028) and PS (U+2029)
 * end a line like LF (and an edit writes them back as LF). CR and NEL fold inside a scalar as
 * LF does there; kubectl keeps LS and PS inside a scalar as they are, which the yaml library
 * cannot do, so an LS or PS inside a scalar is an error rather than a different value.
 */
export function parseKubeconfigDocument(source: string, path: string): Document {
  const separators: number[] = [];
  const text = source.replace(YAML_11_LINE_BREAK, (character: string, offset: number) => {
    if (character === '\u2028' || character === '\u2029') separators.push(offset);
    return '\n';
  });
  let document: Document;
  const lineCounter = new LineCounter();
  const forbidden = FORBIDDEN_CHARACTER.exec(text);
  if (forbidden) {
    // kubectl's YAML reader refuses these anywhere in the file; the yaml library keeps them.
    const before = text.slice(0, forbidden.index);
    const [line, col] = [before.split('\n').length, forbidden.index - before.lastIndexOf('\n')];
    throw new KubeconfigError(
      'ERR_CONFIG_PARSE',
      `error loading config file "${path}": yaml: line ${line}, column ${col}: control characters are not allowed`,
      { path },
    );
  }
  const directive = directiveProblem(text);
  if (directive) {
    throw new KubeconfigError(
      'ERR_CONFIG_PARSE',
      `error loading config file "${path}": yaml: ${directive}`,
      {
        path,
      },
    );
  }
  try {
    document = parseDocument(text, {
      lineCounter,
      version: '1.1',
      customTags: kubectlYamlTags,
      uniqueKeys: false,
      prettyErrors: false,
      keepSourceTokens: false,
      strict: false,
    });
  } catch (error) {
    throw new KubeconfigError(
      'ERR_CONFIG_PARSE',
      `error loading config file "${path}": ${safeYamlMessage(error)}`,
      { path },
    );
  }
  if (!isDocument(document)) {
    throw new KubeconfigError('ERR_CONFIG_PARSE', `error loading config file "${path}"`, {
      path,
    });
  }
  // kubectl reads the first document of a stream and ignores the rest, as yaml.v2 does.
  const [first] = document.errors.filter((error) => error.code !== 'MULTIPLE_DOCS');
  if (first) {
    throw new KubeconfigError(
      'ERR_CONFIG_PARSE',
      `error loading config file "${path}": ${safeYamlMessage(first, lineCounter)}`,
      { path },
    );
  }
  const separator = separators.length > 0 ? separatorInScalar(document, separators) : undefined;
  if (separator !== undefined) {
    const position = lineCounter.linePos(separator);
    throw new KubeconfigError(
      'ERR_CONFIG_PARSE',
      `error loading config file "${path}": yaml: line ${position.line}, column ${position.col}: a line or paragraph separator (U+2028, U+2029) inside a scalar is not supported`,
      { path },
    );
  }
  return document;
}

/** separatorInScalar returns the first offset in `offsets` that lies inside a scalar's source. */
function separatorInScalar(document: Document, offsets: readonly number[]): number | undefined {
  let found: number | undefined;
  visit(document, {
    Scalar(_, node) {
      const [start, end] = node.range ?? [0, 0];
      found = offsets.find((offset) => offset >= start && offset < end);
      return found === undefined ? undefined : visit.BREAK;
    },
  });
  return found;
}

/**
 * aliasesRepeatTooMuch walks the document in order and adds up the nodes each alias repeats
 * (the size of its anchor's node, aliases within included), stopping once past `limit`.
 */
export function aliasesRepeatTooMuch(document: Document, limit: number): boolean {
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  let repeated = 0;
  const sizeOf = (node: unknown): number => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      // A target still being measured is an ancestor of the alias; toJS rejects that cycle.
      const size = target ? (sizes.get(target) ?? 1) : 0;
      repeated += size;
      return size;
    }
    if (!isNode(node)) return 0;
    if (node.anchor) anchors.set(node.anchor, node);
    let size = 1;
    if (isCollection(node)) {
      for (const item of node.items) {
        size += isPair(item) ? sizeOf(item.key) + sizeOf(item.value) : sizeOf(item);
        if (repeated > limit) return size;
      }
    }
    sizes.set(node, size);
    return size;
  };
  sizeOf(document.contents);
  return repeated > limit;
}

function decodeText(bytes: Uint8Array, path: string): string {
  let encoding = 'utf-8';
  let offset = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) offset = 3;
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) [encoding, offset] = ['utf-16le', 2];
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) [encoding, offset] = ['utf-16be', 2];
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes.subarray(offset));
  } catch (error) {
    throw new KubeconfigError(
      'ERR_CONFIG_PARSE',
      `error loading config file "${path}": not valid ${encoding} text`,
      { path, cause: error },
    );
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** safeYamlMessage keeps the YAML library's diagnosis and position, never the source text. */
export function safeYamlMessage(error: unknown, lineCounter?: LineCounter): string {
  if (typeof error === 'object' && error !== null) {
    const { message, pos } = error as { message?: unknown; pos?: [number, number] };
    const firstLine = typeof message === 'string' ? (message.split('\n')[0] ?? '') : '';
    // The library can append "at line L, column C:" and a code excerpt; keep neither.
    const diagnosis = withoutQuotedSource(firstLine.replace(/ at line \d+, column \d+:?$/, ''))
      // The yaml library's recursion ran out of stack: say what that means for the text.
      .replace(/^Maximum call stack size exceeded$/, 'nested too deeply')
      .slice(0, 200);
    const position = pos && lineCounter ? lineCounter.linePos(pos[0]) : undefined;
    return position
      ? `yaml: line ${position.line}, column ${position.col}: ${diagnosis}`
      : diagnosis;
  }
  return 'invalid yaml';
}

// Messages of the yaml library that quote the source without a colon (an escape sequence, a
// version, a directive, a verbatim tag); only their fixed beginning is kept.
const QUOTING_MESSAGE =
  /^(Invalid escape sequence|Unsupported YAML version|Unknown directive|Verbatim tags aren't resolved)\b/;

/**
 * withoutQuotedSource drops the source text the yaml library quotes in some messages: after a
 * colon ("Unresolved alias (…): NAME", "Could not resolve tag: !TAG", "Block scalar header
 * includes extra characters: |TEXT", "… token in YAML document: \"TEXT\"") or inline. An
 * alias, a tag or a block scalar header can be a mistyped password (`password: *secret`).
 */
function withoutQuotedSource(message: string): string {
  const quoting = QUOTING_MESSAGE.exec(message);
  if (quoting?.[1]) return quoting[1];
  if (/^The .* tag has no suffix$/.test(message)) return 'A tag has no suffix';
  const colon = message.indexOf(': ');
  return colon === -1 ? message : message.slice(0, colon);
}

/**
 * directiveProblem applies yaml.v2's directive rules, which the yaml library relaxes: only
 * `%YAML 1.1` (once) and `%TAG` are accepted before the first document (checked with kubectl).
 */
function directiveProblem(text: string): string | undefined {
  let seenYaml = false;
  // Only the lines before the first content matter; do not split a large file.
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end === -1 ? text.length : end).replace(/\r$/, '');
    start = end === -1 ? text.length : end + 1;
    if (line.trim() === '' || line.startsWith('#')) continue;
    if (!line.startsWith('%')) return undefined;
    const [name, version] = line.slice(1).split(/[ \t]+/);
    if (name === 'TAG') continue;
    if (name !== 'YAML') return 'found unknown directive name';
    if (seenYaml) return 'found duplicate %YAML directive';
    if (version !== '1.1') return 'found incompatible YAML document';
    seenYaml = true;
  }
  return undefined;
}
