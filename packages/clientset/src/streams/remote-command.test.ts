import { describe, expect, it } from 'vitest';
import { RemoteCommandError } from '../errors.js';
import {
  MAX_STATUS_BYTES,
  exitResult,
  parseStatus,
  remoteCommandParams,
} from './remote-command.js';

describe('exitResult (the error channel’s Status)', () => {
  it('reads Success as exit code 0', () => {
    expect(exitResult({ metadata: {}, status: 'Success' }).exitCode).toBe(0);
  });

  it('reads NonZeroExitCode as a result with the ExitCode cause', () => {
    // What a kubelet sends for `exit 3` (cri-streaming's exec.go).
    const status = {
      metadata: {},
      status: 'Failure',
      message:
        'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    };
    expect(exitResult(status as never)).toEqual({ exitCode: 3, status });
  });

  it('makes any other Failure a RemoteCommandError carrying the Status', () => {
    const status = { status: 'Failure', reason: 'InternalError', message: 'no such container' };
    let error: unknown;
    try {
      exitResult(status);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RemoteCommandError);
    expect((error as RemoteCommandError).status).toBe(status);
    expect((error as RemoteCommandError).reason).toBe('InternalError');
    expect((error as Error).message).toBe('remote command failed: no such container');
  });

  it('quotes at most 4 KiB of the Status message, without control characters', () => {
    const message = `\u001b]0;title\u0007${'€'.repeat(1_000_000)}`;
    const status = { status: 'Failure', reason: 'InternalError', message };
    let error: unknown;
    try {
      exitResult(status);
    } catch (caught) {
      error = caught;
    }
    expect((error as RemoteCommandError).status.message).toBe(message);
    const text = (error as Error).message;
    expect(text).toMatch(/^remote command failed: \]0;title€+…$/);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096 + 30);
  });

  it('keeps no more than 64 KiB of an error channel’s Status', () => {
    const huge = JSON.stringify({ status: 'Failure', message: 'x'.repeat(10 * MAX_STATUS_BYTES) });
    const status = parseStatus(Buffer.from(huge));
    expect(status.status).toBe('Failure');
    expect(status.message).toMatch(
      /^a status of 655\d+ bytes, more than 65536: \{"status":"Failure"/,
    );
    expect(Buffer.byteLength(status.message!)).toBeLessThan(4096 + 100);
    const small = { status: 'Failure', reason: 'InternalError', message: 'no such container' };
    expect(parseStatus(Buffer.from(JSON.stringify(small)))).toEqual(small);
  });

  it('does not take a NonZeroExitCode without a usable code for a result', () => {
    expect(() =>
      exitResult({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [] },
      }),
    ).toThrow(RemoteCommandError);
  });
});

describe('remoteCommandParams', () => {
  it('sends kubectl’s defaults and never stderr with a tty', () => {
    expect(remoteCommandParams({}, ['ls', '-l'])).toEqual({
      container: undefined,
      command: ['ls', '-l'],
      stdin: false,
      stdout: true,
      stderr: true,
      tty: false,
    });
    expect(remoteCommandParams({ tty: true, stdin: true, container: 'c' }, undefined)).toEqual({
      container: 'c',
      command: undefined,
      stdin: true,
      stdout: true,
      stderr: false,
      tty: true,
    });
  });
});
