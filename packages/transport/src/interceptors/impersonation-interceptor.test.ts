import { describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { impersonationInterceptor } from './impersonation-interceptor.js';

describe('impersonationInterceptor', () => {
  const seen: Dispatcher.DispatchOptions[] = [];
  const dispatch = impersonationInterceptor({ user: 'jane', groups: ['devs'], extra: new Map() })((
    options,
  ) => {
    seen.push(options);
    return true;
  });
  const handler = {} as Dispatcher.DispatchHandler;

  it('adds the headers to requests', () => {
    dispatch({ path: '/', method: 'GET', headers: { accept: 'application/json' } }, handler);
    expect(seen.at(-1)?.headers).toEqual([
      'accept',
      'application/json',
      'impersonate-user',
      'jane',
      'impersonate-group',
      'devs',
    ]);
  });

  it('keeps a request that impersonates on its own untouched', () => {
    const headers = { 'Impersonate-User': 'other' };
    dispatch({ path: '/', method: 'GET', headers }, handler);
    expect(seen.at(-1)?.headers).toBe(headers);
  });
});
