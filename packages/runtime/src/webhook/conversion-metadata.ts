import { isJsonObject, ownValue, type JsonObject } from './conversion-json.js';
import { isLabelValue, isQualifiedName } from './webhook-configuration-checks.js';

// The API server takes from a converted object only its labels and annotations: the rest of
// metadata is put back from the object it sent, and labels or annotations a webhook changed must
// pass the same validation as on a write (apiextensions-apiserver's restoreObjectMeta).

/** TOTAL_ANNOTATION_BYTES is Kubernetes' limit on an object's annotations, keys and values together. */
const TOTAL_ANNOTATION_BYTES = 256 * 1024;

/** utf8Length is the number of bytes of `text` in UTF-8 (Go's len of a string), without encoding it. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      bytes += 4; // a surrogate pair is one code point of four bytes
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

type Field = 'labels' | 'annotations';

/** stringMapProblem says what is wrong with a converter's labels or annotations, or undefined. */
function stringMapProblem(field: Field, map: JsonObject): string | undefined {
  let bytes = 0;
  for (const [key, value] of Object.entries(map)) {
    if (typeof value !== 'string')
      return `metadata.${field}[${JSON.stringify(key)}] is not a string`;
    if (field === 'labels') {
      if (!isQualifiedName(key)) return `label key ${JSON.stringify(key)} is not a qualified name`;
      if (!isLabelValue(value))
        return `the value of label ${JSON.stringify(key)} is not a valid label value`;
    } else {
      if (!isQualifiedName(key.toLowerCase())) {
        return `annotation key ${JSON.stringify(key)} is not a qualified name`;
      }
      bytes += utf8Length(key) + utf8Length(value);
    }
  }
  if (bytes > TOTAL_ANNOTATION_BYTES) {
    return `the annotations take ${bytes} bytes, more than Kubernetes' ${TOTAL_ANNOTATION_BYTES}`;
  }
  return undefined;
}

function sameStringMap(left: unknown, right: JsonObject): boolean {
  if (!isJsonObject(left)) return Object.keys(right).length === 0;
  const keys = Object.keys(right);
  return (
    keys.length === Object.keys(left).length &&
    keys.every((key) => Object.hasOwn(left, key) && left[key] === right[key])
  );
}

/**
 * restoredMetadata is the metadata of a converted object as the API server keeps it: `original`
 * (the metadata of the object it sent; not copied, the caller owns it) with the labels and
 * annotations of `converted`, the metadata the converter returned. When the converter returned
 * no metadata at all, `given`'s labels and annotations (what the converter was handed) are kept.
 * Labels or annotations the converter changed are validated as the API server does; a problem
 * is returned as a sentence instead.
 */
export function restoredMetadata(
  original: JsonObject,
  given: JsonObject,
  converted: unknown,
): { readonly metadata: JsonObject } | { readonly problem: string } {
  if (converted !== undefined && !isJsonObject(converted)) {
    return { problem: 'the converter returned metadata that is not an object' };
  }
  const source = converted ?? given;
  const metadata: JsonObject = { ...original };
  delete metadata['labels'];
  delete metadata['annotations'];
  for (const field of ['labels', 'annotations'] as const) {
    const map = ownValue(source, field);
    if (map === undefined || map === null) continue;
    if (!isJsonObject(map))
      return { problem: `the converter's metadata.${field} is not an object` };
    if (!sameStringMap(ownValue(original, field), map)) {
      const problem = stringMapProblem(field, map);
      if (problem !== undefined) return { problem };
    }
    metadata[field] = map;
  }
  return { metadata };
}
