import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { resolveTransportStack, type TransportStackLayer } from './resolve-transport-stack.js';
import type { TransportInterceptor } from './transport-interceptor.js';

const interceptor = (): Dispatcher.DispatcherComposeInterceptor => (dispatch) => dispatch;

describe('resolveTransportStack', () => {
  const userAgent = interceptor();
  const auth = interceptor();
  const layout: TransportStackLayer[] = [
    { position: 'request' },
    { name: 'user-agent', interceptor: userAgent },
    { position: 'decorated' },
    { name: 'auth', interceptor: auth },
    { position: 'wire' },
    { name: 'pool' },
  ];

  it('with no user interceptors, composes exactly the built-in functions: nothing wrapped, nothing added', () => {
    const stack = resolveTransportStack([undefined, ...layout], []);
    expect(stack.interceptors).toHaveLength(2);
    expect(stack.interceptors[0]).toBe(userAgent);
    expect(stack.interceptors[1]).toBe(auth);
    expect(stack.entries.map((entry) => entry.name)).toEqual(['user-agent', 'auth', 'pool']);
  });

  it("composes a user interceptor's own function at its position", () => {
    const user: TransportInterceptor = {
      name: 'mine',
      position: 'decorated',
      interceptor: interceptor(),
    };
    const stack = resolveTransportStack(layout, [user]);
    expect(stack.interceptors).toEqual([userAgent, user.interceptor, auth]);
    expect(stack.interceptors[1]).toBe(user.interceptor);
    expect(stack.entries[1]).toEqual({ name: 'mine', builtin: false, position: 'decorated' });
  });

  it('refuses to drop an interceptor whose position the layout lacks', () => {
    const user: TransportInterceptor = {
      name: 'lost',
      position: 'wire',
      interceptor: interceptor(),
    };
    expect(() => resolveTransportStack(layout.slice(0, 4), [user])).toThrow(
      'the transport stack layout has no position "wire"',
    );
  });
});
