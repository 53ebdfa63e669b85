import { ApiError, ConnectionError, type Status } from '@k/rest';
import { caught } from '@k/test-utils';
import { describe, expect, it } from 'vitest';
import { ClientsetError } from './errors.js';
import { ignoreAlreadyExists, ignoreNotFound } from './ignore-errors.js';

// The server's answers as @k/rest decodes them; the e2e test (e2e/ignore-errors.e2e.test.ts)
// gets the same ones from the real API server.
const failure = (code: number, reason: Status['reason']): ApiError =>
  new ApiError({
    kind: 'Status',
    status: 'Failure',
    code,
    reason,
    message: `configmaps: ${reason}`,
  });
const notFound = failure(404, 'NotFound');
const alreadyExists = failure(409, 'AlreadyExists');
const conflict = failure(409, 'Conflict');
// A 404 without a Status body (a proxy's page): client-go's generic Status says NotFound.
const bare404 = new ApiError(
  { kind: 'Status', status: 'Failure', code: 404, reason: '', message: 'page not found' },
  { httpStatusCode: 404 },
);
const reset = new ConnectionError('get /api/v1/namespaces/ns/configmaps/a failed: reset', {
  request: { method: 'GET', path: '/api/v1/namespaces/ns/configmaps/a' },
  attempts: 1,
  mayHaveReachedServer: true,
});

describe('ignoreNotFound', () => {
  it('resolves with the answer, or undefined for NotFound (with or without a Status)', async () => {
    expect(await ignoreNotFound(Promise.resolve({ name: 'a' }))).toEqual({ name: 'a' });
    expect(await ignoreNotFound(Promise.reject(notFound))).toBeUndefined();
    expect(await ignoreNotFound(Promise.reject(bare404))).toBeUndefined();
  });

  it('rejects with every other error as it came', async () => {
    for (const error of [alreadyExists, conflict, reset, new TypeError('bug')]) {
      expect(await caught(ignoreNotFound(Promise.reject(error)))).toBe(error);
    }
  });
});

describe('ignoreAlreadyExists', () => {
  it('resolves with the answer, or undefined for AlreadyExists', async () => {
    expect(await ignoreAlreadyExists(Promise.resolve('created'))).toBe('created');
    expect(await ignoreAlreadyExists(Promise.reject(alreadyExists))).toBeUndefined();
  });

  it('rejects with a 409 Conflict and every other error as it came', async () => {
    for (const error of [conflict, notFound, reset, new TypeError('bug')]) {
      expect(await caught(ignoreAlreadyExists(Promise.reject(error)))).toBe(error);
    }
  });
});

describe('a call instead of its result, from plain JavaScript', () => {
  it('is a typed error saying what to pass', async () => {
    const misuse = (() => Promise.resolve()) as never;
    for (const [ignore, name] of [
      [ignoreNotFound, 'ignoreNotFound'],
      [ignoreAlreadyExists, 'ignoreAlreadyExists'],
    ] as const) {
      for (const value of [misuse, undefined, { name: 'a' }]) {
        const error = await caught(ignore(value as never));
        expect(ClientsetError.isInstance(error) && error.code).toBe(
          'ERR_CLIENTSET_INVALID_ARGUMENT',
        );
        expect((error as Error).message).toMatch(
          new RegExp(`^${name}: request must be a promise \\(the call's result`),
        );
      }
    }
  });
});
