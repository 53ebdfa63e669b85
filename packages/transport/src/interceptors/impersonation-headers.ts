import type { Impersonation } from '@k/config';
import type { HeaderList } from './header-list.js';

/** The RFC 7230 `tchar`s other than digits and letters. */
const TOKEN_SYMBOLS = new Set("!#$&'*+-.^_`|~");

function isTokenByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) ||
    (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x61 && byte <= 0x7a) ||
    TOKEN_SYMBOLS.has(String.fromCharCode(byte))
  );
}

/**
 * escapeExtraKey percent-encodes an impersonation extra key for use in a header name, as
 * client-go's `headerKeyEscape` does: every UTF-8 byte that is not an RFC 7230 token character,
 * and `%` itself, becomes `%XX` (upper-case hex). `decodeURIComponent(escapeExtraKey(k)) === k`
 * for every key, which is how the API server reads it back.
 */
export function escapeExtraKey(key: string): string {
  let escaped = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    if (byte !== 0x25 && isTokenByte(byte)) {
      escaped += String.fromCharCode(byte);
    } else {
      escaped += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return escaped;
}

/**
 * impersonationHeaders returns the headers that ask the API server to act as `impersonation`:
 * `Impersonate-User` (always, even when empty, as client-go does), `Impersonate-Uid` when set,
 * one `Impersonate-Group` per group and one `Impersonate-Extra-<escaped key>` per extra value,
 * in that order. Returns an empty list when nothing is set.
 */
export function impersonationHeaders(impersonation: Impersonation): HeaderList {
  const hasExtra = [...impersonation.extra.values()].some((values) => values.length > 0);
  if (!impersonation.user && !impersonation.uid && impersonation.groups.length === 0 && !hasExtra) {
    return [];
  }
  const headers: HeaderList = ['impersonate-user', impersonation.user];
  if (impersonation.uid) headers.push('impersonate-uid', impersonation.uid);
  for (const group of impersonation.groups) headers.push('impersonate-group', group);
  for (const [key, values] of impersonation.extra) {
    const name = `impersonate-extra-${escapeExtraKey(key)}`;
    for (const value of values) headers.push(name, value);
  }
  return headers;
}
