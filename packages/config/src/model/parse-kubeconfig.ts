import type { Document } from 'yaml';
import { isDocument, LineCounter, parseDocument } from 'yaml';
import { KubeconfigError } from '../errors.js';
import { decodeKubeconfig } from './decode-kubeconfig.js';
import type { Kubeconfig } from './kubeconfig.js';
import { kubectlYamlTags } from './yaml-schema.js';

/** The most aliases one document may dereference: stops "billion laughs" alias bombs. */
const MAX_ALIAS_COUNT = 1000;

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
 * UTF-16 byte-order mark is honoured. `path` is only used in error messages. Throws a
 * {@link KubeconfigError} (`ERR_KUBECONFIG_PARSE` or `ERR_KUBECONFIG_DUPLICATE_NAME`) whose
 * message gives a line and column but no file content, so no secret can leak through it.
 */
export function parseKubeconfig(source: string | Uint8Array, path = '<input>'): KubeconfigFile {
  const text = typeof source === 'string' ? stripBom(source) : decodeText(source, path);
  const document = parseKubeconfigDocument(text, path);
  let value: unknown;
  try {
    value = document.toJS({ mapAsMap: true, maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw new KubeconfigError(
      'ERR_KUBECONFIG_PARSE',
      `error loading config file "${path}": ${safeYamlMessage(error)}`,
      { path, cause: error },
    );
  }
  return { path, config: decodeKubeconfig(value, path), document };
}

/** parseKubeconfigDocument parses text into a YAML document, or throws a KubeconfigError. */
export function parseKubeconfigDocument(text: string, path: string): Document {
  let document: Document;
  const lineCounter = new LineCounter();
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
      'ERR_KUBECONFIG_PARSE',
      `error loading config file "${path}": ${safeYamlMessage(error)}`,
      { path, cause: error },
    );
  }
  if (!isDocument(document)) {
    throw new KubeconfigError('ERR_KUBECONFIG_PARSE', `error loading config file "${path}"`, {
      path,
    });
  }
  const [first] = document.errors;
  if (first) {
    throw new KubeconfigError(
      'ERR_KUBECONFIG_PARSE',
      `error loading config file "${path}": ${safeYamlMessage(first, lineCounter)}`,
      { path, cause: first },
    );
  }
  return document;
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
      'ERR_KUBECONFIG_PARSE',
      `error loading config file "${path}": not valid ${encoding} text`,
      { path, cause: error },
    );
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** safeYamlMessage keeps the YAML library's diagnosis and position, never the source text. */
function safeYamlMessage(error: unknown, lineCounter?: LineCounter): string {
  if (typeof error === 'object' && error !== null) {
    const { message, pos } = error as { message?: unknown; pos?: [number, number] };
    const firstLine = typeof message === 'string' ? (message.split('\n')[0] ?? '') : '';
    // The library can append "at line L, column C:" and a code excerpt; keep neither.
    const diagnosis = firstLine.replace(/ at line \d+, column \d+:?$/, '').slice(0, 200);
    const position = pos && lineCounter ? lineCounter.linePos(pos[0]) : undefined;
    return position
      ? `yaml: line ${position.line}, column ${position.col}: ${diagnosis}`
      : diagnosis;
  }
  return 'invalid yaml';
}
