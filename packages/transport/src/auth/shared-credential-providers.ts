import { expectRecord, expectString, invalidArgument } from '../checks/argument-checks.js';
import type { CredentialProvider, CredentialRequest, Credentials } from './credential-provider.js';

/** SharedCredentialProviderRequest says which shared provider {@link SharedCredentialProviders.acquire} hands out. */
export interface SharedCredentialProviderRequest {
  /** now is the clock of the transport asking (its `CredentialProviderContext.now`). */
  now: () => number;
  /** key names the settings under which two providers are interchangeable (plugin, cluster, user). */
  key: string;
  /** create makes the provider when none is shared yet for this clock and key. */
  create: () => CredentialProvider;
  /** closedError is what a closed handle rejects with (it names this provider's command or issuer). */
  closedError: () => Error;
}

interface SharedEntry {
  provider: CredentialProvider;
  references: number;
}

/**
 * SharedCredentialProviders lets every transport built from the same settings share one
 * provider — one credential cache, one plugin run or token refresh at a time — as client-go
 * caches exec authenticators and OIDC providers process-wide. The exec and OIDC factories each
 * hold one. `acquire` returns a handle; the shared provider is closed when its last handle is
 * closed, and a closed handle rejects with the request's `closedError()`.
 *
 * Providers are keyed by the clock first, then by `key`. A provider judges expiry (exec
 * credentials, OIDC id-tokens) with the clock it was created with, so two transports may share
 * one only when they share the clock: a test's fake clock must never decide whether the real
 * clock's token is fresh, nor the reverse. Clocks are compared by identity (a function has no
 * other) and held weakly, so a clock that is dropped takes its bookkeeping with it.
 */
export class SharedCredentialProviders {
  readonly #byClock = new WeakMap<() => number, Map<string, SharedEntry>>();
  #size = 0;

  /** size is the number of live shared providers, over every clock. */
  get size(): number {
    return this.#size;
  }

  /** acquire returns a handle on the provider of `request.now` and `request.key`, creating it if needed. */
  acquire(request: SharedCredentialProviderRequest): CredentialProvider {
    checkRequest(request);
    const { now, key, closedError } = request;
    let entries = this.#byClock.get(now);
    if (!entries) {
      entries = new Map();
      this.#byClock.set(now, entries);
    }
    let entry = entries.get(key);
    if (!entry) {
      entry = { provider: request.create(), references: 0 };
      entries.set(key, entry);
      this.#size++;
    }
    entry.references++;
    const current = entry;
    const shared = entries;
    const provider = current.provider;
    let closed = false;
    return {
      kind: provider.kind,
      getCredentials: (credentialRequest?: CredentialRequest): Promise<Credentials> =>
        closed ? Promise.reject(closedError()) : provider.getCredentials(credentialRequest),
      invalidate: (rejected: Credentials): boolean | Promise<boolean> =>
        !closed && provider.invalidate ? provider.invalidate(rejected) : false,
      close: async (): Promise<void> => {
        if (closed) return;
        closed = true;
        current.references--;
        if (current.references === 0) {
          if (shared.get(key) === current) {
            shared.delete(key);
            this.#size--;
          }
          await provider.close?.();
        }
      },
    };
  }
}

function checkRequest(request: unknown): void {
  const where = 'SharedCredentialProviders.acquire';
  expectRecord(request, where, 'request', 'an object with now, key, create and closedError');
  expectString(request.key, where, 'request.key');
  for (const name of ['now', 'create', 'closedError'] as const) {
    if (typeof request[name] !== 'function') {
      throw invalidArgument(where, `request.${name}`, 'a function', request[name]);
    }
  }
}
