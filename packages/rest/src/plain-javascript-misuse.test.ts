import { describe, expect, it } from 'vitest';
import { createRestClient } from './client/create-rest-client.js';
import { RestClient } from './client/rest-client.js';
import { RequestBuildError, RestConfigurationError } from './errors.js';
import { RetryPolicy } from './retry/retry-policy.js';
import { TokenBucket } from './throttle/token-bucket.js';
import { apiServerDispatcher } from '@k/transport';
import type { Dispatcher } from 'undici';

// What a plain JavaScript caller can pass that TypeScript would refuse: every entry point answers
// with a typed error naming the argument, never `Cannot read properties of undefined`.

/** untyped passes `value` where TypeScript would refuse it, as plain JavaScript can. */
const untyped = <T>(value: unknown): T => value as T;

const fakeDispatcher = untyped<Dispatcher>({ dispatch: () => true });
const dispatcher = apiServerDispatcher(fakeDispatcher, 'https://127.0.0.1:6443');
const client = new RestClient(dispatcher, { throttle: 'off', retry: RetryPolicy.never() });

async function buildError(run: () => Promise<unknown>): Promise<RequestBuildError> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RequestBuildError);
  return error as RequestBuildError;
}

describe('plain JavaScript misuse of @k/rest', () => {
  it('createRestClient without a configuration or with bad options', () => {
    expect(() => createRestClient(untyped(undefined))).toThrow(
      new RestConfigurationError(
        "createRestClient needs a resolved configuration (from @k/config's resolveConfig or inferConfig), got undefined",
      ),
    );
    expect(() => createRestClient(untyped({}), untyped('fast'))).toThrow(
      'createRestClient options must be an object, got a string',
    );
    expect(() => createRestClient(untyped({}), { throttle: untyped(5) })).toThrow(
      RestConfigurationError,
    );
    expect(() => createRestClient(untyped({}), { retry: untyped(3) })).toThrow(
      RestConfigurationError,
    );
  });

  it('new RestClient with missing or old-shaped parts', () => {
    expect(() => new RestClient(untyped(undefined))).toThrow(
      /RestClient needs an ApiServerDispatcher/,
    );
    // The shape of 0.1: a dispatcher and a server, no longer taken.
    expect(
      () => new RestClient(untyped({ dispatcher: fakeDispatcher, server: 'https://h' })),
    ).toThrow(/RestClient needs an ApiServerDispatcher/);
    for (const options of [
      { timeoutMs: -1 },
      { timeoutMs: '5s' },
      { watchIdleTimeoutMs: NaN },
      { throttle: 5 },
      { throttle: { qps: 20 } },
      { retry: 3 },
      { retry: { maxRetries: 'x' } },
      { onRetry: 'log' },
      { onThrottle: 'log' },
      { groupVersion: 1 },
    ]) {
      expect(() => new RestClient(dispatcher, untyped(options)), JSON.stringify(options)).toThrow(
        RestConfigurationError,
      );
    }
    expect(() => new RestClient(dispatcher, untyped('fast'))).toThrow(RestConfigurationError);
  });

  it('builder arguments of the wrong type are recorded and thrown when the request runs', async () => {
    expect(
      (await buildError(() => client.get().namespace(untyped(5)).resource('pods').execute()))
        .message,
    ).toBe('namespace must be a string, got number 5');
    expect(
      (await buildError(() => client.get().resource(untyped(undefined)).execute())).message,
    ).toBe('resource must be a string, got undefined');
    await buildError(() => client.get().resource('pods').name(untyped(null)).execute());
    await buildError(() => client.get().resource('pods').subresource(untyped(1)).execute());
    await buildError(() => client.get().absPath(untyped({})).execute());
    await buildError(() =>
      client
        .get()
        .groupVersion(untyped(['apps', 'v1']))
        .execute(),
    );
    await buildError(() => client.get().resource('pods').param('limit', untyped({})).execute());
    await buildError(() => client.get().resource('pods').params(untyped(null)).execute());
    await buildError(() => client.get().resource('pods').accept(untyped(7)).execute());
    await buildError(() => client.get().resource('pods').signal(untyped({})).execute());
    expect(
      (await buildError(() => client.get().resource('pods').maxRetries(Number.NaN).execute()))
        .message,
    ).toBe('maxRetries must be a finite number, got number NaN');
    await buildError(() => client.get().resource('pods').timeout(untyped('5s')).execute());
    await buildError(() => client.get().resource('pods').watch(untyped('bookmarks')));
    await buildError(() => client.get().resource('pods').watch({ idleTimeoutMs: -1 }));
    await buildError(() =>
      client
        .get()
        .resource('pods')
        .watch({ omitManagedFields: untyped('yes') }),
    );
  });

  it('limiter and retry settings of the wrong type', () => {
    expect(() => new TokenBucket({ qps: untyped('5') })).toThrow(RestConfigurationError);
    expect(() => new TokenBucket({ burst: untyped('10') })).toThrow(RestConfigurationError);
    expect(() => new RetryPolicy({ maxRetries: Number.NaN })).toThrow(RestConfigurationError);
  });
});
