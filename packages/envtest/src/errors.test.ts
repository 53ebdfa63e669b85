import { KubeError } from '@k/config/errors';
import { ControlPlaneError, type ControlPlaneErrorCode } from '@k/testenv';
import { describe, expect, it } from 'vitest';
import { EnvtestError, redactSecrets, toEnvtestError, type EnvtestErrorCode } from './errors.js';

const ENGINE_CODES: readonly ControlPlaneErrorCode[] = [
  'GO_UNAVAILABLE',
  'BUILD_FAILED',
  'BUILD_LOCK_TIMEOUT',
  'BINARIES_MISSING',
  'COMPONENT_UNAVAILABLE',
  'UNSUPPORTED_VERSION',
  'CACHE_CORRUPT',
  'PKI_FAILED',
  'PORT_IN_USE',
  'PROCESS_EXITED',
  'READY_TIMEOUT',
  'PROVISION_FAILED',
  'NOT_RUNNING',
  'INVALID_OPTIONS',
];

const TOKEN = 'f3a9c0d1e2b34455667788990aabbccddeeff0011223344';
const KEY =
  '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----';

describe('toEnvtestError', () => {
  it.each(ENGINE_CODES)(
    'maps the engine code %s to ERR_ENVTEST_%s, keeping step, logTail and cause',
    (code) => {
      const engine = new ControlPlaneError(code, `${code} happened`, {
        step: 'start etcd',
        logTail: 'last line',
      });
      const converted = toEnvtestError(engine);
      expect(EnvtestError.isInstance(converted)).toBe(true);
      const error = converted as EnvtestError;
      expect(error.code).toBe(`ERR_ENVTEST_${code}` satisfies string as EnvtestErrorCode);
      expect(error.step).toBe('start etcd');
      expect(error.logTail).toBe('last line');
      expect(error.cause).toBe(engine);
      expect(error.message).toContain(`${code} happened`);
      expect(error).toBeInstanceOf(KubeError);
      expect(error).toBeInstanceOf(EnvtestError);
    },
  );

  it('returns other errors and EnvtestErrors as they are', () => {
    const plain = new Error('x');
    expect(toEnvtestError(plain)).toBe(plain);
    const ours = new EnvtestError('ERR_ENVTEST_NOT_RUNNING', 'y');
    expect(toEnvtestError(ours)).toBe(ours);
    expect(toEnvtestError('text')).toBe('text');
    const lookalike = Object.assign(new Error('z'), { code: 'SOMETHING_ELSE' });
    lookalike.name = 'ControlPlaneError';
    expect(toEnvtestError(lookalike)).toBe(lookalike);
  });

  it('tells users k-envtest’s commands, never k-testenv’s', () => {
    const engine = new ControlPlaneError(
      'NOT_RUNNING',
      'not running; start one with `k-testenv up`, or run `npx k-testenv build` once (cache /root/.cache/k-testenv)',
    );
    const error = toEnvtestError(engine) as EnvtestError;
    expect(error.message).toContain('`k-envtest up`');
    expect(error.message).toContain('`npx k-envtest build`');
    expect(error.message).not.toMatch(/k-testenv (up|build)/);
    // Paths are facts: they stay as they are.
    expect(error.message).toContain('/root/.cache/k-testenv');
  });

  it('never passes a token or a private key on, neither in its message nor in its cause', () => {
    const engine = new ControlPlaneError(
      'PROVISION_FAILED',
      `request with Authorization: Bearer ${TOKEN} failed; token=${TOKEN}\n${KEY}`,
      { logTail: `${TOKEN},tester,k-testenv-tester\n${KEY}` },
    );
    const error = toEnvtestError(engine, [TOKEN]) as EnvtestError;
    for (const text of [
      error.message,
      error.logTail ?? '',
      engine.message,
      engine.stack ?? '',
      engine.logTail ?? '',
    ]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('MIGHAgEAMBMGByqGSM49');
    }
    expect(error.message).toContain('[redacted');
  });
});

describe('redactSecrets', () => {
  it('removes private keys, bearer and basic credentials, token fields and given secrets', () => {
    expect(redactSecrets(`a ${KEY} b`)).toBe('a [redacted private key] b');
    expect(redactSecrets('Authorization: Bearer abc.def-ghi')).toBe(
      'Authorization: Bearer [redacted]',
    );
    expect(redactSecrets('Basic dXNlcjpwYXNz')).toBe('Basic [redacted]');
    expect(redactSecrets('{"token":"abcdef"}')).toBe('{"token":"[redacted]"}');
    expect(redactSecrets('the value s3cr3t-value-1 leaked', ['s3cr3t-value-1'])).toBe(
      'the value [redacted] leaked',
    );
    // A key cut short by a log tail is still removed.
    expect(redactSecrets('-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE')).toBe(
      '[redacted private key]',
    );
    expect(redactSecrets('nothing secret here')).toBe('nothing secret here');
  });
});

describe('EnvtestError', () => {
  it('is recognised across copies of the package by its brand', () => {
    const error = new EnvtestError('ERR_ENVTEST_CRD_INVALID', 'bad');
    // Another copy's instance: a plain object carrying the same Symbol.for brand.
    const foreign = Object.create(Error.prototype) as Record<symbol, unknown>;
    foreign[Symbol.for('@k/envtest.EnvtestError')] = true;
    expect(EnvtestError.isInstance(foreign)).toBe(true);
    expect(foreign instanceof EnvtestError).toBe(true);
    expect(EnvtestError.isInstance(new Error('x'))).toBe(false);
    expect(error.name).toBe('EnvtestError');
    expect(error.code).toBe('ERR_ENVTEST_CRD_INVALID');
  });
});
