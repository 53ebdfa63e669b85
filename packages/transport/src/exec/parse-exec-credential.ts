import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import type { Credentials } from '../auth/credential-provider.js';
import { expectString } from '../checks/argument-checks.js';
import { ExecPluginError } from '../errors.js';
import { EXEC_CREDENTIAL_API_VERSIONS } from './build-exec-credential-request.js';

/** ParsedExecCredential is a validated plugin response and the secrets it contained. */
export interface ParsedExecCredential {
  credentials: Credentials;
  /** secrets are the token and private key, so later error output can be redacted. */
  secrets: string[];
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
// Visible ASCII, space and tab: what an HTTP header value may hold.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * parseExecCredential validates a plugin's stdout as an ExecCredential of `apiVersion` with
 * client-go's checks and messages, in client-go's order (decoding, version, status, token or
 * cert/key, both halves of the pair, the pair itself, the leaf). A token becomes
 * `Authorization: Bearer <token>`; a PEM pair (checked with node:crypto: the key must match the
 * leaf) becomes `clientCertificate`; both may be returned. `expirationTimestamp` (RFC 3339)
 * becomes `expiresAt`. Throws `ERR_TRANSPORT_EXEC_INVALID_OUTPUT`; unlike client-go, no message quotes the
 * output (it holds the credential). Pure.
 */
export function parseExecCredential(
  stdout: string,
  apiVersion: string,
  command: string,
): ParsedExecCredential {
  expectString(stdout, 'parseExecCredential', 'stdout', true);
  expectString(apiVersion, 'parseExecCredential', 'apiVersion');
  expectString(command, 'parseExecCredential', 'command');
  const fail = (message: string, cause?: unknown): never => {
    throw new ExecPluginError('ERR_TRANSPORT_EXEC_INVALID_OUTPUT', message, { command, cause });
  };
  let document: unknown;
  try {
    document = JSON.parse(stdout);
  } catch {
    // JSON.parse messages quote the input, which may be a credential: say only where it broke.
    fail(`decoding stdout: stdout is not valid JSON (${Buffer.byteLength(stdout)} bytes)`);
  }
  if (!isObject(document)) return fail('decoding stdout: stdout is not a JSON object');
  const returnedVersion = document.apiVersion;
  if (typeof returnedVersion !== 'string' || returnedVersion === '') {
    return fail("decoding stdout: Object 'apiVersion' is missing");
  }
  const kind = document.kind;
  if (typeof kind !== 'string' || kind === '')
    return fail("decoding stdout: Object 'Kind' is missing");
  if (kind !== 'ExecCredential' || !EXEC_CREDENTIAL_API_VERSIONS.includes(returnedVersion)) {
    return fail(
      `decoding stdout: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(returnedVersion)}`,
    );
  }
  if (returnedVersion !== apiVersion) {
    return fail(
      `exec plugin is configured to use API version ${apiVersion}, plugin returned version ${returnedVersion}`,
    );
  }
  const status = document.status;
  if (status === undefined || status === null)
    return fail("exec plugin didn't return a status field");
  if (!isObject(status)) return fail('decoding stdout: status is not an object');
  const token = optionalString(status, 'token', fail);
  const certificate = optionalString(status, 'clientCertificateData', fail);
  const key = optionalString(status, 'clientKeyData', fail);
  const expiration = status.expirationTimestamp;
  let expiresAt: Date | undefined;
  if (expiration !== undefined && expiration !== null && expiration !== '') {
    if (typeof expiration !== 'string' || !RFC3339.test(expiration)) {
      return fail('decoding stdout: status.expirationTimestamp is not an RFC 3339 time');
    }
    expiresAt = new Date(expiration);
    if (Number.isNaN(expiresAt.getTime())) {
      return fail('decoding stdout: status.expirationTimestamp is not an RFC 3339 time');
    }
  }
  if (!token && !certificate && !key)
    return fail("exec plugin didn't return a token or cert/key pair");
  if (!certificate !== !key) return fail('exec plugin returned only certificate or key, not both');

  const credentials: Credentials = {};
  const secrets: string[] = [];
  if (token) {
    if (!HEADER_VALUE.test(token)) {
      return fail('exec plugin returned a token that is not a valid header value');
    }
    credentials.authorization = `Bearer ${token}`;
    secrets.push(token);
  }
  if (certificate && key) {
    secrets.push(key);
    validateKeyPair(certificate, key, fail);
    credentials.clientCertificate = { certificate, key };
  }
  if (expiresAt) credentials.expiresAt = expiresAt;
  return { credentials, secrets };
}

function validateKeyPair(
  certificatePem: string,
  keyPem: string,
  fail: (message: string, cause?: unknown) => never,
): void {
  if (!certificatePem.includes('-----BEGIN CERTIFICATE-----')) {
    fail('failed parsing client key/certificate: failed to find any PEM data in certificate input');
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(keyPem);
  } catch (error) {
    return fail(`failed parsing client key/certificate: ${describe(error)}`, error);
  }
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certificatePem);
  } catch (error) {
    return fail(`failed parsing client leaf certificate: ${describe(error)}`, error);
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    fail('failed parsing client key/certificate: private key does not match public key');
  }
}

function optionalString(
  status: Record<string, unknown>,
  field: string,
  fail: (message: string) => never,
): string {
  const value = status[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') return fail(`decoding stdout: status.${field} is not a string`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
