import { KubeError } from '@k/config';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ConnectionError,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  RequestBuildError,
  suggestsClientDelay,
  WatchDecodeError,
} from './errors.js';
import { apiErrorFromResponse } from './client/request-executor.js';
import { WatchDecoder } from './watch/watch-decoder.js';
import { genericStatus, isStatus } from './status.js';

function generic(
  code: number,
  method = 'GET',
  resource = '',
  name = '',
  text = 'unknown',
): ApiError {
  return new ApiError(genericStatus(code, { method, resource, name }, text, undefined, true), {
    httpStatusCode: code,
    unexpected: true,
  });
}

describe('genericStatus (client-go NewGenericServerResponse)', () => {
  it('names the verb, resource and name (F1)', () => {
    const error = generic(404, 'GET', 'foo', 'bar');
    expect(error.message).toBe('the server could not find the requested resource (get foo bar)');
    expect(isNotFound(error)).toBe(true);
    expect(error.code).toBe('ERR_REST_API_UNEXPECTED_RESPONSE');
    expect(error.details?.causes?.[0]?.reason).toBe('UnexpectedServerResponse');
    const grouped = new ApiError(
      genericStatus(
        404,
        { method: 'DELETE', group: 'apps', resource: 'deployments' },
        '',
        undefined,
        false,
      ),
    );
    expect(grouped.message).toBe(
      'the server could not find the requested resource (delete deployments.apps)',
    );
  });

  it('maps 409 to AlreadyExists for POST and Conflict otherwise (F2, F3)', () => {
    expect(isAlreadyExists(generic(409, 'POST'))).toBe(true);
    expect(isConflict(generic(409, 'POST'))).toBe(false);
    expect(isConflict(generic(409, 'PUT'))).toBe(true);
    expect(isAlreadyExists(generic(409, 'PUT'))).toBe(false);
  });

  it('maps the other codes to client-go reasons and messages', () => {
    expect(generic(401).message).toBe('the server has asked for the client to provide credentials');
    expect(isUnauthorized(generic(401))).toBe(true);
    expect(isForbidden(generic(403, 'GET', '', '', 'pods is forbidden'))).toBe(true);
    expect(generic(403, 'GET', '', '', 'pods is forbidden').message).toBe('pods is forbidden');
    expect(isBadRequest(generic(400))).toBe(true);
    expect(isInvalid(generic(422))).toBe(true);
    expect(isTooManyRequests(generic(429))).toBe(true);
    expect(isServiceUnavailable(generic(503))).toBe(true);
    expect(isTimeout(generic(504))).toBe(true);
    expect(isGone(generic(410))).toBe(true);
    expect(generic(502, 'GET', '', '', '<html>bad gateway</html>').message).toBe(
      'an error on the server ("<html>bad gateway</html>") has prevented the request from succeeding',
    );
    expect(isInternalError(generic(502))).toBe(true);
    expect(isInternalError(generic(500))).toBe(true);
    expect(generic(418).message).toBe(
      'the server responded with the status code 418 but did not return more information',
    );
  });

  it('records Retry-After seconds in the details', () => {
    const status = genericStatus(429, { method: 'GET' }, 'unknown', 7, true);
    expect(status.details?.retryAfterSeconds).toBe(7);
    const error = new ApiError(status, { httpStatusCode: 429 });
    expect(error.retryAfterSeconds).toBe(7);
    expect(suggestsClientDelay(error)).toBe(true);
  });
});

describe('ApiError predicates', () => {
  const fromStatus = (reason: string, code: number): ApiError =>
    new ApiError({
      kind: 'Status',
      status: 'Failure',
      reason,
      code,
      message: `${reason} happened`,
    });

  it('prefer the reason and fall back to the code only for unknown reasons', () => {
    expect(isNotFound(fromStatus('NotFound', 404))).toBe(true);
    expect(isNotFound(fromStatus('', 404))).toBe(true);
    expect(isNotFound(fromStatus('SomethingNew', 404))).toBe(true);
    expect(isNotFound(fromStatus('Conflict', 404))).toBe(false);
    expect(isConflict(fromStatus('AlreadyExists', 409))).toBe(false);
  });

  it('isGone covers Gone, Expired and bare 410s; isResourceExpired only Expired', () => {
    expect(isGone(fromStatus('Gone', 410))).toBe(true);
    expect(isGone(fromStatus('Expired', 410))).toBe(true);
    expect(isGone(fromStatus('', 410))).toBe(true);
    expect(isResourceExpired(fromStatus('Expired', 410))).toBe(true);
    expect(isResourceExpired(fromStatus('Gone', 410))).toBe(false);
  });

  it('isTooManyRequests matches the code whatever the reason; isServerTimeout only the reason', () => {
    expect(isTooManyRequests(fromStatus('InternalError', 429))).toBe(true);
    expect(isServerTimeout(fromStatus('ServerTimeout', 500))).toBe(true);
    expect(isServerTimeout(fromStatus('', 504))).toBe(false);
    expect(suggestsClientDelay(fromStatus('ServerTimeout', 500))).toBe(true);
  });

  it('are false for anything that is not an ApiError', () => {
    for (const predicate of [isNotFound, isConflict, isGone, isTooManyRequests, isForbidden]) {
      expect(predicate(new Error('404'))).toBe(false);
      expect(predicate(undefined)).toBe(false);
    }
  });

  it('keep the server message and expose the Status', () => {
    const error = fromStatus('Invalid', 422);
    expect(error.message).toBe('Invalid happened');
    expect(error.status.reason).toBe('Invalid');
    expect(error.statusCode).toBe(422);
  });
});

describe('error classes', () => {
  it('are KubeErrors with stable codes and cross-copy brands', () => {
    const build = new RequestBuildError('resource name may not be empty');
    expect(KubeError.isInstance(build)).toBe(true);
    expect(build.code).toBe('ERR_REST_REQUEST_INVALID');
    expect(RequestBuildError.isInstance(build)).toBe(true);
    expect(ApiError.isInstance(build)).toBe(false);
    const connection = new ConnectionError('reset', {
      request: { method: 'POST', path: '/api/v1/x' },
      attempts: 1,
      mayHaveReachedServer: true,
    });
    expect(ConnectionError.isInstance(connection)).toBe(true);
    expect(connection.name).toBe('ConnectionError');
  });

  it('isStatus requires kind Status (F5)', () => {
    expect(isStatus({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404 })).toBe(true);
    expect(isStatus({ kind: 'Status', status: 'Failure' })).toBe(true);
    expect(isStatus({ status: 'Failure', code: 404 })).toBe(false);
    expect(isStatus({ kind: 'Status', apiVersion: 'apps/v1' })).toBe(false);
  });

  it('isStatus rejects a Status with a mistyped field, as client-go cannot decode it', () => {
    for (const field of [
      { code: '404' },
      { code: 404.5 },
      { reason: 404 },
      { message: { text: 'x' } },
      { status: true },
      { details: 'x' },
      { details: { retryAfterSeconds: '5' } },
      { details: { causes: 'x' } },
      { details: { causes: [{ field: 3 }] } },
      { metadata: [] },
    ]) {
      expect(isStatus({ kind: 'Status', status: 'Failure', ...field }), JSON.stringify(field)).toBe(
        false,
      );
    }
  });

  it('a 404 whose Status says code "404" is still NotFound, by its HTTP code', () => {
    const error = apiErrorFromResponse(
      { method: 'GET', path: '/api/v1/pods/p', group: '', resource: 'pods', name: 'p' } as never,
      404,
      { 'content-type': 'application/json' },
      Buffer.from(
        JSON.stringify({ kind: 'Status', status: 'Failure', code: '404', reason: 'Mystery' }),
      ),
    );
    expect(isNotFound(error)).toBe(true);
    expect(error.statusCode).toBe(404);
  });
});

describe('watch ERROR events', () => {
  it('are rejected when their object is not a Status', () => {
    const decoder = new WatchDecoder();
    expect(() =>
      decoder.push(Buffer.from('{"type":"ERROR","object":{"code":"410","reason":"Gone"}}\n')),
    ).toThrow(WatchDecodeError);
    expect(
      decoder.push(Buffer.from('{"type":"ERROR","object":{"code":410,"reason":"Gone"}}\n')),
    ).toHaveLength(1);
  });
});
