import { describe, expect, it } from 'vitest';
import { createRestClient } from './client/create-rest-client.js';
import { RestClient } from './client/rest-client.js';
import { RequestBuildError, RestConfigurationError } from './errors.js';
import { RetryPolicy } from './retry/retry-policy.js';
import { TokenBucket } from './throttle/token-bucket.js';

// What a plain JavaScript caller can pass that TypeScript would refuse: every entry point answers
// with a typed error naming the argument, never `Cannot read properties of undefined`.

/** untyped passes `value` where TypeScript would refuse it, as plain JavaScript can. */
const untyped = <T>(value: unknown): T => value as T;

const client = new RestClient(
  { dispatcher: untyped({ dispatch: () => true }), server: 'https://127.0.0.1:6443' },
  TokenBucket.unlimited(),
  RetryPolicy.never(),
);

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

  it('new RestClient with missing parts', () => {
    expect(
      () => new RestClient(untyped(undefined), untyped(undefined), untyped(undefined)),
    ).toThrow(/RestClient needs a transport/);
    expect(
      () =>
        new RestClient(
          { dispatcher: untyped({ dispatch: () => true }), server: 'https://h' },
          untyped({}),
          RetryPolicy.never(),
        ),
    ).toThrow(/RestClient needs a rate limiter/);
    expect(
      () =>
        new RestClient(
          { dispatcher: untyped({ dispatch: () => true }), server: 'https://h' },
          TokenBucket.unlimited(),
          untyped({ maxRetries: 3 }),
        ),
    ).toThrow(/RestClient needs a retry policy/);
    for (const options of [{ timeoutMs: -1 }, { timeoutMs: '5s' }, { watchIdleTimeoutMs: NaN }]) {
      expect(
        () =>
          new RestClient(
            { dispatcher: untyped({ dispatch: () => true }), server: 'https://h' },
            TokenBucket.unlimited(),
            RetryPolicy.never(),
            untyped(options),
          ),
      ).toThrow(RestConfigurationError);
    }
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
  });

  it('limiter and retry settings of the wrong type', () => {
    expect(() => new TokenBucket({ qps: untyped('5') })).toThrow(RestConfigurationError);
    expect(() => new TokenBucket({ burst: untyped('10') })).toThrow(RestConfigurationError);
    expect(() => new RetryPolicy({ maxRetries: Number.NaN })).toThrow(RestConfigurationError);
  });
});
