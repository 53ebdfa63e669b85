import { describe, expect, it } from 'vitest';
import type { CredentialProvider } from './credential-provider.js';
import { SharedCredentialProviders } from './shared-credential-providers.js';

/** A provider that counts how often it was created and closed. */
function counted(log: string[], name: string): CredentialProvider {
  log.push(`create ${name}`);
  return {
    kind: 'counted',
    getCredentials: () => Promise.resolve({ authorization: `Bearer ${name}` }),
    invalidate: () => true,
    close: () => {
      log.push(`close ${name}`);
      return Promise.resolve();
    },
  };
}

describe('SharedCredentialProviders', () => {
  const clock = () => 0;

  it('hands out one provider per clock and key, closed with its last handle', async () => {
    const log: string[] = [];
    const shared = new SharedCredentialProviders();
    const request = (key: string, now = clock) => ({
      now,
      key,
      create: () => counted(log, `${key}@${now === clock ? 'fake' : 'real'}`),
      closedError: () => new Error(`${key} was closed`),
    });
    const first = shared.acquire(request('a'));
    const second = shared.acquire(request('a'));
    const otherKey = shared.acquire(request('b'));
    const otherClock = shared.acquire(request('a', Date.now));
    expect(log).toEqual(['create a@fake', 'create b@fake', 'create a@real']);
    expect(shared.size).toBe(3);
    expect(await second.getCredentials()).toEqual({ authorization: 'Bearer a@fake' });
    expect(await otherClock.getCredentials()).toEqual({ authorization: 'Bearer a@real' });

    await first.close?.();
    expect(log).not.toContain('close a@fake');
    await first.close?.(); // idempotent: does not release the second handle's reference
    expect(await second.getCredentials()).toEqual({ authorization: 'Bearer a@fake' });
    await second.close?.();
    expect(log).toContain('close a@fake');
    expect(shared.size).toBe(2);
    await otherKey.close?.();
    await otherClock.close?.();
    expect(shared.size).toBe(0);
  });

  it("rejects on a closed handle with that request's own error, never another provider's", async () => {
    const shared = new SharedCredentialProviders();
    const handle = (command: string) =>
      shared.acquire({
        now: clock,
        key: command,
        create: () => counted([], command),
        closedError: () => new Error(`credential provider for ${command} was closed`),
      });
    const first = handle('plugin-one');
    const second = handle('plugin-two');
    await first.close?.();
    await second.close?.();
    await expect(first.getCredentials()).rejects.toThrow('plugin-one was closed');
    await expect(second.getCredentials()).rejects.toThrow('plugin-two was closed');
    expect(await second.invalidate?.({})).toBe(false);
  });

  it('checks its request for plain JavaScript callers', () => {
    const shared = new SharedCredentialProviders() as unknown as {
      acquire(request: unknown): unknown;
    };
    expect(() => shared.acquire(undefined)).toThrow(
      expect.objectContaining({ code: 'ERR_TRANSPORT_INVALID_ARGUMENT' }),
    );
    expect(() =>
      shared.acquire({ now: clock, key: 'k', create: () => undefined, closedError: 'x' }),
    ).toThrow('SharedCredentialProviders.acquire: request.closedError must be a function');
  });
});
