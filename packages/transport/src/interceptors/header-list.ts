import type { Dispatcher } from 'undici';

/** HeaderList is request headers in undici's flat form: `[name, value, name, value, …]`. */
export type HeaderList = string[];

/**
 * toHeaderList copies request headers of any form undici accepts (a record with string or array
 * values, a flat array, an iterable of pairs such as a `Map` or `Headers`) into a new flat list,
 * keeping names as given and repeated values as repeated entries. Undefined values are dropped.
 */
export function toHeaderList(headers: Dispatcher.DispatchOptions['headers']): HeaderList {
  const list: HeaderList = [];
  if (headers == null) return list;
  if (Array.isArray(headers) && (headers.length === 0 || typeof headers[0] === 'string')) {
    for (let index = 0; index + 1 < headers.length; index += 2) {
      list.push(String(headers[index]), String(headers[index + 1]));
    }
    return list;
  }
  if (isPlainRecord(headers)) {
    for (const name in headers) {
      if (Object.hasOwn(headers, name)) push(list, name, headers[name]);
    }
    return list;
  }
  for (const [name, value] of headers as Iterable<[string, unknown]>) push(list, name, value);
  return list;
}

function push(list: HeaderList, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) list.push(name, headerValue(item));
  } else {
    list.push(name, headerValue(value));
  }
}

/** isPlainRecord is true for header objects that are not iterable (the common `{ name: value }`). */
function isPlainRecord(headers: object): headers is Record<string, unknown> {
  return !(Symbol.iterator in headers);
}

function headerValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/**
 * hasHeader reports whether request headers of any undici form set `name` (given in lower
 * case; matched case-insensitively). It does not copy the headers.
 */
export function hasHeader(headers: Dispatcher.DispatchOptions['headers'], name: string): boolean {
  if (headers == null) return false;
  if (Array.isArray(headers) && (headers.length === 0 || typeof headers[0] === 'string')) {
    for (let index = 0; index < headers.length; index += 2) {
      const key = headers[index] as string;
      if (key.length === name.length && key.toLowerCase() === name) return true;
    }
    return false;
  }
  if (isPlainRecord(headers)) {
    for (const key in headers) {
      if (key.length === name.length && key.toLowerCase() === name && headers[key] != null)
        return true;
    }
    return false;
  }
  for (const [key, value] of headers as Iterable<[string, unknown]>) {
    if (key.toLowerCase() === name && value != null) return true;
  }
  return false;
}

/**
 * withHeaders returns a new flat header list: `headers` followed by `additions` (a flat list).
 * The request's own headers are kept; callers check {@link hasHeader} first when a header must
 * be set only if absent.
 */
export function withHeaders(
  headers: Dispatcher.DispatchOptions['headers'],
  additions: HeaderList,
): HeaderList {
  const list = toHeaderList(headers);
  for (const item of additions) list.push(item);
  return list;
}
