import { beforeAll, describe, expect, it } from 'vitest';
import { createTestCertificates } from '@k/test-utils';
import { ExecPluginError } from '../errors.js';
import { parseExecCredential } from './parse-exec-credential.js';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

const output = (status: unknown, apiVersion = V1, kind = 'ExecCredential') =>
  JSON.stringify({ kind, apiVersion, status });

const failure = (stdout: string, apiVersion = V1): ExecPluginError => {
  try {
    parseExecCredential(stdout, apiVersion, 'plugin');
  } catch (error) {
    expect(error).toBeInstanceOf(ExecPluginError);
    expect((error as ExecPluginError).code).toBe('ERR_TRANSPORT_EXEC_INVALID_OUTPUT');
    return error as ExecPluginError;
  }
  throw new Error('expected a failure');
};

describe('parseExecCredential', () => {
  /** A certificate and its key, and a key of another pair. */
  let pair: { certificate: string; key: string };
  let other: { key: string };
  beforeAll(() => {
    const pki = createTestCertificates();
    pair = { certificate: pki.clientCertPem, key: pki.clientKeyPem };
    other = { key: pki.serverKeyPem };
  });

  it('D1: a token becomes a bearer authorization without expiry', () => {
    const parsed = parseExecCredential(output({ token: 'foo-bar' }, V1BETA1), V1BETA1, 'plugin');
    expect(parsed.credentials).toEqual({ authorization: 'Bearer foo-bar' });
    expect(parsed.secrets).toEqual(['foo-bar']);
  });

  it('D7: expirationTimestamp becomes expiresAt', () => {
    const parsed = parseExecCredential(
      output({ token: 't', expirationTimestamp: '2006-01-02T15:04:05Z' }),
      V1,
      'plugin',
    );
    expect(parsed.credentials.expiresAt?.toISOString()).toBe('2006-01-02T15:04:05.000Z');
    const offset = parseExecCredential(
      output({ token: 't', expirationTimestamp: '2006-01-02T15:04:05.5+01:00' }),
      V1,
      'plugin',
    );
    expect(offset.credentials.expiresAt?.toISOString()).toBe('2006-01-02T14:04:05.500Z');
  });

  it('D8: output without apiVersion is a decoding error', () => {
    expect(
      failure(JSON.stringify({ kind: 'ExecCredential', status: { token: 'x' } })).message,
    ).toBe("decoding stdout: Object 'apiVersion' is missing");
    expect(failure(JSON.stringify({ apiVersion: V1, status: { token: 'x' } })).message).toBe(
      "decoding stdout: Object 'Kind' is missing",
    );
  });

  it('undecodable stdout never quotes the output', () => {
    const error = failure('token-super-secret-value not json');
    expect(error.message).toMatch(/^decoding stdout: stdout is not valid JSON/);
    expect(error.message).not.toContain('super-secret');
  });

  it('another known version is a version mismatch, an unknown one a decoding error', () => {
    expect(failure(output({ token: 'x' }, V1BETA1), V1).message).toBe(
      `exec plugin is configured to use API version ${V1}, plugin returned version ${V1BETA1}`,
    );
    expect(failure(output({ token: 'x' }, 'client.authentication.k8s.io/v1alpha1')).message).toBe(
      'decoding stdout: no kind "ExecCredential" is registered for version "client.authentication.k8s.io/v1alpha1"',
    );
  });

  it('no status field', () => {
    expect(failure(JSON.stringify({ kind: 'ExecCredential', apiVersion: V1 })).message).toBe(
      "exec plugin didn't return a status field",
    );
  });

  it('D9: an empty status has no token or cert/key', () => {
    expect(failure(output({})).message).toBe("exec plugin didn't return a token or cert/key pair");
  });

  it('D10: only one half of the pair', () => {
    expect(failure(output({ clientCertificateData: pair.certificate })).message).toBe(
      'exec plugin returned only certificate or key, not both',
    );
    expect(failure(output({ clientKeyData: pair.key })).message).toBe(
      'exec plugin returned only certificate or key, not both',
    );
  });

  it('returns a matching PEM pair, and a token with it', () => {
    const parsed = parseExecCredential(
      output({ token: 'tok', clientCertificateData: pair.certificate, clientKeyData: pair.key }),
      V1,
      'plugin',
    );
    expect(parsed.credentials).toEqual({
      authorization: 'Bearer tok',
      clientCertificate: { certificate: pair.certificate, key: pair.key },
    });
    expect(parsed.secrets).toEqual(['tok', pair.key]);
  });

  it('rejects a key that does not match the certificate, and garbage PEM', () => {
    const mismatch = failure(
      output({ clientCertificateData: pair.certificate, clientKeyData: other.key }),
    );
    expect(mismatch.message).toBe(
      'failed parsing client key/certificate: private key does not match public key',
    );
    expect(mismatch.message).not.toContain('PRIVATE KEY');
    expect(
      failure(output({ clientCertificateData: 'nope', clientKeyData: pair.key })).message,
    ).toBe(
      'failed parsing client key/certificate: failed to find any PEM data in certificate input',
    );
    const badKey = failure(output({ clientCertificateData: pair.certificate, clientKeyData: 'k' }));
    expect(badKey.message).toMatch(/^failed parsing client key\/certificate: /);
    const badLeaf = failure(
      output({
        clientCertificateData: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
        clientKeyData: pair.key,
      }),
    );
    expect(badLeaf.message).toMatch(/^failed parsing client leaf certificate: /);
  });

  it('rejects wrong field types, bad timestamps and tokens that cannot be a header', () => {
    expect(failure(output({ token: 42 })).message).toBe(
      'decoding stdout: status.token is not a string',
    );
    expect(failure(output({ token: 't', expirationTimestamp: 'tomorrow' })).message).toBe(
      'decoding stdout: status.expirationTimestamp is not an RFC 3339 time',
    );
    const newline = failure(output({ token: 'abc\r\nX-Injected: yes' }));
    expect(newline.message).toBe('exec plugin returned a token that is not a valid header value');
    expect(newline.message).not.toContain('Injected');
  });
});
