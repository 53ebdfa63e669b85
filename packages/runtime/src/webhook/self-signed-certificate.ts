import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP, isIPv4 } from 'node:net';
import { RuntimeError } from '../errors.js';

/** SelfSignedCertificateOptions configure {@link createSelfSignedCertificate}. */
export interface SelfSignedCertificateOptions {
  /** hosts are the DNS names and IP addresses the certificate is for (its SANs; the first is also its CN). */
  readonly hosts: readonly string[];
  /** validityDays is how long it is valid from now (default 365). */
  readonly validityDays?: number | undefined;
  /** now is the clock of its validity (default `Date.now`). */
  readonly now?: (() => number) | undefined;
}

/**
 * SelfSignedCertificate is a serving certificate that is its own authority: `certPem` and
 * `keyPem` (PKCS #8) to serve with, `caPem` (the certificate again) for a client to trust, and
 * `caBundle` (base64 of `caPem`), the form a webhook configuration's `clientConfig.caBundle` and a
 * CRD's conversion webhook take.
 */
export interface SelfSignedCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
  readonly caBundle: string;
}

const MAX_HOSTS = 100;
// A DNS name of labels (a leading `*.` allowed), at most 253 characters.
const DNS_NAME =
  /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const DAY_MS = 86_400_000;

/**
 * createSelfSignedCertificate makes an ECDSA P-256 key and a self-signed X.509 v3 certificate for
 * `hosts` (subjectAltName DNS and IP entries; CN is the first host), usable by a TLS server only
 * (basicConstraints CA:FALSE, keyUsage digitalSignature, extKeyUsage serverAuth), valid from one
 * minute ago for `validityDays`. Node's crypto makes keys and signatures but not certificates, so
 * the DER is written here (ADR 0024). Throws ERR_RUNTIME_WEBHOOK_CERTIFICATE for no hosts, too
 * many, or a host that is neither a DNS name nor an IP address.
 */
export function createSelfSignedCertificate(
  options: SelfSignedCertificateOptions,
): SelfSignedCertificate {
  const hosts = checkedHosts(options.hosts);
  const validityDays = options.validityDays ?? 365;
  if (!(Number.isInteger(validityDays) && validityDays >= 1 && validityDays <= 3650)) {
    throw new RuntimeError(
      'ERR_RUNTIME_WEBHOOK_CERTIFICATE',
      `a self-signed certificate's validityDays must be a whole number of days from 1 to 3650, not ${String(validityDays)}`,
    );
  }
  const now = (options.now ?? Date.now)();
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const tbs = tbsCertificate({
    serial: serialNumber(),
    commonName: hosts[0]!.slice(0, 64),
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + validityDays * DAY_MS),
    spki,
    hosts,
  });
  const certificate = sequence(tbs, ECDSA_WITH_SHA256, bitString(signWith(privateKey, tbs)));
  const certPem = pem('CERTIFICATE', certificate);
  return {
    certPem,
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    caPem: certPem,
    caBundle: Buffer.from(certPem).toString('base64'),
  };
}

function checkedHosts(hosts: readonly string[]): string[] {
  if (!Array.isArray(hosts) || hosts.length === 0 || hosts.length > MAX_HOSTS) {
    throw new RuntimeError(
      'ERR_RUNTIME_WEBHOOK_CERTIFICATE',
      `a self-signed certificate needs 1 to ${MAX_HOSTS} hosts (DNS names or IP addresses)`,
    );
  }
  return hosts.map((host) => {
    if (typeof host === 'string' && (isIP(host) || (host.length <= 253 && DNS_NAME.test(host)))) {
      return isIP(host) ? host : host.toLowerCase();
    }
    throw new RuntimeError(
      'ERR_RUNTIME_WEBHOOK_CERTIFICATE',
      `self-signed certificate host ${JSON.stringify(String(host).slice(0, 100))} is neither a DNS name nor an IP address`,
    );
  });
}

function signWith(privateKey: KeyObject, tbs: Uint8Array): Buffer {
  // An ECDSA signature in a certificate is the DER Ecdsa-Sig-Value, Node's default encoding.
  return sign('sha256', tbs, privateKey);
}

/** serialNumber is 16 random bytes, positive and without a needless leading zero (RFC 5280 §4.1.2.2). */
function serialNumber(): Buffer {
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  return serial;
}

interface TbsFields {
  serial: Uint8Array;
  commonName: string;
  notBefore: Date;
  notAfter: Date;
  spki: Uint8Array;
  hosts: readonly string[];
}

function tbsCertificate(fields: TbsFields): Uint8Array {
  const name = sequence(set(sequence(oid('2.5.4.3'), utf8String(fields.commonName))));
  const generalNames = fields.hosts.map(
    (host) =>
      isIP(host)
        ? tagged(0x87, ipBytes(host)) // [7] iPAddress, IMPLICIT OCTET STRING
        : tagged(0x82, Buffer.from(host, 'ascii')), // [2] dNSName, IMPLICIT IA5String
  );
  // SubjectKeyIdentifier: SHA-1 of the subjectPublicKey bits (RFC 5280 §4.2.1.2, method 1).
  const keyBits = fields.spki.subarray(fields.spki.length - 65);
  const extensions = [
    extension('2.5.29.19', true, sequence()), // basicConstraints: CA false
    extension('2.5.29.15', true, bitString(Uint8Array.of(0x80), 7)), // keyUsage: digitalSignature
    extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
    extension('2.5.29.17', false, sequence(...generalNames)), // subjectAltName
    extension('2.5.29.14', false, octetString(createHash('sha1').update(keyBits).digest())),
  ];
  return sequence(
    tagged(0xa0, integer(Uint8Array.of(2))), // [0] EXPLICIT version v3
    integer(fields.serial),
    ECDSA_WITH_SHA256,
    name,
    sequence(time(fields.notBefore), time(fields.notAfter)),
    name,
    fields.spki,
    tagged(0xa3, sequence(...extensions)), // [3] EXPLICIT extensions
  );
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical
    ? sequence(oid(id), Uint8Array.of(0x01, 0x01, 0xff), octetString(value))
    : sequence(oid(id), octetString(value));
}

/** ipBytes is an IPv4 address's 4 bytes or an IPv6 address's 16 (a `::` run and a dotted tail expanded). */
export function ipBytes(address: string): Uint8Array {
  if (isIPv4(address)) return Uint8Array.from(address.split('.'), Number);
  let text = address.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const words =
    tail === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  words.forEach((word, index) => {
    const value = Number.parseInt(word, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}

// ecdsa-with-SHA256 (RFC 5758 §3.2: the parameters are absent).
const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

/** tagged is one DER TLV: `tag`, the definite length, `content`. */
export function tagged(tag: number, content: Uint8Array): Uint8Array {
  const length = content.length;
  let header: number[];
  if (length < 0x80) header = [tag, length];
  else {
    const lengthBytes: number[] = [];
    for (let rest = length; rest > 0; rest = Math.floor(rest / 256))
      lengthBytes.unshift(rest & 0xff);
    header = [tag, 0x80 | lengthBytes.length, ...lengthBytes];
  }
  const out = new Uint8Array(header.length + length);
  out.set(header);
  out.set(content, header.length);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

function sequence(...parts: Uint8Array[]): Uint8Array {
  return tagged(0x30, concat(parts));
}

function set(...parts: Uint8Array[]): Uint8Array {
  return tagged(0x31, concat(parts));
}

/** integer encodes unsigned big-endian `bytes` as a DER INTEGER (minimal, with a 0 byte where the top bit is set). */
export function integer(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const minimal = bytes.subarray(start);
  return tagged(0x02, minimal[0]! & 0x80 ? concat([Uint8Array.of(0), minimal]) : minimal);
}

function bitString(bytes: Uint8Array, unusedBits = 0): Uint8Array {
  return tagged(0x03, concat([Uint8Array.of(unusedBits), bytes]));
}

function octetString(bytes: Uint8Array): Uint8Array {
  return tagged(0x04, bytes);
}

function utf8String(text: string): Uint8Array {
  return tagged(0x0c, Buffer.from(text, 'utf8'));
}

/** oid encodes a dotted object identifier (base-128 arcs, the first two joined). */
export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split('.').map(Number);
  const values = [arcs[0]! * 40 + arcs[1]!, ...arcs.slice(2)];
  const bytes: number[] = [];
  for (const value of values) {
    const chunk = [value & 0x7f];
    for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128)) {
      chunk.unshift(0x80 | (rest & 0x7f));
    }
    bytes.push(...chunk);
  }
  return tagged(0x06, Uint8Array.from(bytes));
}

/** time is UTCTime until 2049 and GeneralizedTime from 2050 on, to the second (RFC 5280 §4.1.2.5). */
export function time(date: Date): Uint8Array {
  const iso = date.toISOString(); // 2026-01-02T03:04:05.678Z
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050
    ? tagged(0x17, Buffer.from(digits.slice(2), 'ascii'))
    : tagged(0x18, Buffer.from(digits, 'ascii'));
}

function pem(label: string, der: Uint8Array): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
