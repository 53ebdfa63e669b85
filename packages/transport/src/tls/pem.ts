import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { TransportError } from '../errors.js';

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/y;

/** PemBlock is one `-----BEGIN <type>-----` … `-----END <type>-----` block. */
interface PemBlock {
  type: string;
  text: string;
  /** hasHeaders is true for blocks with RFC 1421 headers (`Proc-Type: …`), which Go skips. */
  hasHeaders: boolean;
}

/**
 * parsePemBlocks splits PEM text into its blocks. Whitespace between blocks is allowed; any other
 * text makes it fail with `unable to parse bytes as PEM block` (the caller prefixes what it was
 * loading). Never echoes the input.
 */
function parsePemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  let index = skipWhitespace(text, 0);
  while (index < text.length) {
    PEM_BLOCK.lastIndex = index;
    const match = PEM_BLOCK.exec(text);
    if (!match) throw new Error('unable to parse bytes as PEM block');
    blocks.push({
      type: match[1] as string,
      text: match[0],
      hasHeaders: (match[2] as string).includes(':'),
    });
    index = skipWhitespace(text, PEM_BLOCK.lastIndex);
  }
  if (blocks.length === 0) throw new Error('unable to parse bytes as PEM block');
  return blocks;
}

function skipWhitespace(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text[index] as string)) index += 1;
  return index;
}

/**
 * parseCertificateAuthority validates CA bundle text the way client-go loads root certificates
 * and returns the PEM of its certificates. Errors (`ERR_TRANSPORT_TLS`):
 * `unable to load root certificates: unable to parse bytes as PEM block`,
 * `…: failed to parse certificate: <reason>`, `…: no valid certificate authority data seen`.
 * `source` names where it came from (`certificate-authority-data` or the file path).
 */
export function parseCertificateAuthority(text: string, source: string): string {
  const fail = (reason: string, cause?: unknown) =>
    new TransportError(
      'ERR_TRANSPORT_TLS',
      `unable to load root certificates from ${source}: ${reason}`,
      { cause },
    );
  let blocks: PemBlock[];
  try {
    blocks = parsePemBlocks(text);
  } catch (error) {
    throw fail((error as Error).message);
  }
  const certificates: string[] = [];
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE' || block.hasHeaders) continue;
    try {
      new X509Certificate(block.text);
    } catch (error) {
      throw fail(`failed to parse certificate: ${(error as Error).message}`, error);
    }
    certificates.push(block.text);
  }
  if (certificates.length === 0) throw fail('no valid certificate authority data seen');
  return `${certificates.join('\n')}\n`;
}

/**
 * validateClientCertificate checks that `certificate` and `key` are PEM and belong together
 * (Node builds a secure context from them), failing with `ERR_TRANSPORT_TLS`
 * `invalid client certificate/key pair (<source>): <reason>`; the reason is OpenSSL's and never
 * contains key material.
 */
export function validateClientCertificate(certificate: string, key: string, source: string): void {
  try {
    const blocks = parsePemBlocks(certificate);
    if (!blocks.some((block) => block.type === 'CERTIFICATE')) {
      throw new Error('no CERTIFICATE block in the client certificate');
    }
    if (!parsePemBlocks(key).some((block) => block.type.endsWith('PRIVATE KEY'))) {
      throw new Error('no PRIVATE KEY block in the client key');
    }
    createSecureContext({ cert: certificate, key });
  } catch (error) {
    throw new TransportError(
      'ERR_TRANSPORT_TLS',
      `invalid client certificate/key pair (${source}): ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * readTlsFile reads a CA, certificate or key file named in a kubeconfig, failing with
 * `ERR_TRANSPORT_FILE_READ` `unable to read <what> file "<path>": <code>`.
 */
export function readTlsFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new TransportError(
      'ERR_TRANSPORT_FILE_READ',
      `unable to read ${what} file "${path}": ${code}`,
      {
        path,
        cause: error,
      },
    );
  }
}

/** fingerprint is a sha256 of its parts: how secrets enter cache keys (never in clear). */
export function fingerprint(...parts: readonly (string | Uint8Array | undefined)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    hash.update(part === undefined ? '\u0000undefined' : part);
    hash.update('\u0000');
  }
  return hash.digest('base64url');
}
