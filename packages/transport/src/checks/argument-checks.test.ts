import { describe, expect, it } from 'vitest';
import { TransportError } from '../errors.js';
import {
  describeValue,
  expectDuration,
  expectResolvedConfig,
  invalidArgument,
} from './argument-checks.js';

describe('argument checks', () => {
  it('describe a value by its type, never showing a string (it may be a token)', () => {
    expect(describeValue('s3cr3t-token')).toBe('a string');
    expect(describeValue('')).toBe('an empty string');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
    expect(describeValue([1])).toBe('an array');
    expect(describeValue({ token: 's3cr3t-token' })).toBe('an object');
    expect(describeValue(-1)).toBe('the number -1');
    expect(describeValue(Number.NaN)).toBe('NaN');
    expect(describeValue(() => 1)).toBe('a function');
  });

  it('build a TransportError that names the entry point, the argument and what to pass', () => {
    const error = invalidArgument('createTransport', 'options.now', 'a function', 5);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.code).toBe('ERR_TRANSPORT_INVALID_ARGUMENT');
    expect(error.message).toBe('createTransport: options.now must be a function, not the number 5');
  });

  it('accept durations >= 0 and Infinity, refuse NaN, negatives and strings', () => {
    expect(expectDuration(undefined, 'f', 'ms', 7)).toBe(7);
    expect(expectDuration(0, 'f', 'ms', 7)).toBe(0);
    expect(expectDuration(Infinity, 'f', 'ms', 7)).toBe(Infinity);
    for (const bad of [Number.NaN, -1, '5000', null]) {
      expect(() => expectDuration(bad, 'f', 'ms', 7)).toThrow(
        /^f: ms must be a number of milliseconds >= 0 or undefined, not /,
      );
    }
  });

  it('check the shape of a ResolvedConfig without showing its secrets', () => {
    const config = {
      server: 'https://127.0.0.1:6443',
      tls: { insecure: false },
      auth: { kind: 'token', token: 's3cr3t-token' },
      disableCompression: false,
    };
    expect(() => expectResolvedConfig(config, 'f')).not.toThrow();
    expect(() => expectResolvedConfig({ ...config, auth: { kind: 'magic' } }, 'f')).toThrow(
      'f: config.auth.kind must be one of none, token, basic, exec, auth-provider, not a string',
    );
    expect(() => expectResolvedConfig({ ...config, tls: { caData: 's3cr3t-token' } }, 'f')).toThrow(
      'f: config.tls.caData must be a Uint8Array (or Buffer) or undefined, not a string',
    );
  });
});
