import { describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { userAgentInterceptor } from './user-agent-interceptor.js';

describe('userAgentInterceptor', () => {
  it('sets the user agent only when the request has none (C10)', () => {
    const seen: Dispatcher.DispatchOptions[] = [];
    const dispatch = userAgentInterceptor('k/test')((options) => {
      seen.push(options);
      return true;
    });
    const handler = {} as Dispatcher.DispatchHandler;
    dispatch({ path: '/', method: 'GET' }, handler);
    dispatch({ path: '/', method: 'GET', headers: { 'User-Agent': 'other' } }, handler);
    expect(seen[0]?.headers).toEqual(['user-agent', 'k/test']);
    expect(seen[1]?.headers).toEqual({ 'User-Agent': 'other' });
  });
});
