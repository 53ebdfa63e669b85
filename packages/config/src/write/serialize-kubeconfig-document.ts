import type { Document } from 'yaml';
import { toPlainJson } from '../model/decode-kubeconfig.js';

/**
 * serializeKubeconfigDocument prints an edited document in the style of its original text:
 * a JSON file stays JSON (with its indentation), a YAML file keeps its comments, quoting and
 * layout, with the original indentation step and sequence style (kubectl writes `- ` flush with
 * the parent key) and no line folding; documents after the first are kept as they were. A new file (`source` undefined) is YAML in kubectl's style.
 */
export function serializeKubeconfigDocument(
  document: Document,
  source: string | undefined,
): string {
  if (source !== undefined && isJson(source)) {
    const value = toPlainJson(document.toJS({ mapAsMap: true, maxAliasCount: -1 }));
    return `${JSON.stringify(value, null, jsonIndent(source))}\n`;
  }
  // kubectl reads only the first document of a stream; the others are kept verbatim.
  const end = document.range?.[2];
  const rest = source === undefined || end === undefined ? '' : source.slice(end);
  document.errors = document.errors.filter((error) => error.code !== 'MULTIPLE_DOCS');
  const text = document.toString({
    lineWidth: 0,
    indent: yamlIndent(source),
    indentSeq: indentsSequences(source),
    flowCollectionPadding: padsFlowCollections(source),
  });
  return rest ? `${text}${text.endsWith('\n') ? '' : '\n'}${rest}` : text;
}

function isJson(source: string): boolean {
  if (!/^\s*\{/.test(source)) return false;
  try {
    JSON.parse(source);
    return true;
  } catch {
    return false;
  }
}

function jsonIndent(source: string): string | number {
  const indent = /\n([ \t]+)\S/.exec(source)?.[1];
  return indent ?? 0;
}

// A key that opens a nested block, possibly as the first key of a sequence item.
const BLOCK_KEY = /^( *)(- +)?[^\s#-][^\n]*:[ \t]*$/;

function* blockKeys(source: string): Generator<{ column: number; next: string }> {
  const lines = source.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const match = BLOCK_KEY.exec(lines[index] ?? '');
    if (!match) continue;
    const next = lines.slice(index + 1).find((line) => line.trim() !== '' && !/^\s*#/.test(line));
    if (next === undefined) return;
    yield { column: (match[1] ?? '').length + (match[2] ?? '').length, next };
  }
}

function yamlIndent(source: string | undefined): number {
  if (source === undefined) return 2;
  for (const { column, next } of blockKeys(source)) {
    const indent = /^ */.exec(next)?.[0].length ?? 0;
    if (indent > column && !next.trimStart().startsWith('-')) {
      const step = indent - column;
      if (step >= 1 && step <= 8) return step;
    }
  }
  return 2;
}

/** padsFlowCollections tells `{ a: 1 }` (the yaml library's style) from `{a: 1}` (kubectl docs). */
function padsFlowCollections(source: string | undefined): boolean {
  if (source === undefined) return true;
  const padded = source.match(/[[{] +[^\s\]}]/g)?.length ?? 0;
  const tight = source.match(/[[{][^\s\]}]/g)?.length ?? 0;
  return padded >= tight;
}

function indentsSequences(source: string | undefined): boolean {
  if (source === undefined) return false;
  for (const { column, next } of blockKeys(source)) {
    const indent = /^ */.exec(next)?.[0].length ?? 0;
    if (next.trimStart().startsWith('- ') || next.trim() === '-') return indent > column;
  }
  return false;
}
