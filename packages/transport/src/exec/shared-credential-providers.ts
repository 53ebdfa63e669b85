import { invalidArgument } from '../checks/argument-checks.js';
import type {
  CredentialProvider,
  CredentialRequest,
  Credentials,
} from '../auth/credential-provider.js';

/**
 * SharedCredentialProviders lets every transport built from the same settings share one
 * provider — one credential cache, one plugin run or token refresh at a time — as client-go
 * caches exec authenticators and OIDC providers process-wide. `acquire` returns a handle; the
 * shared provider is closed when the last handle is closed. A closed handle rejects with
 * `closedError()`.
 */
export class SharedCredentialProviders {
  readonly #entries = new Map<string, { provider: CredentialProvider; references: number }>();
  readonly #closedError: () => Error;

  constructor(closedError: () => Error) {
    if (typeof closedError !== 'function') {
      throw invalidArgument(
        'SharedCredentialProviders',
        'closedError',
        'a function returning the error for a closed handle',
        closedError,
      );
    }
    this.#closedError = closedError;
  }

  /** size is the number of live shared providers. */
  get size(): number {
    return this.#entries.size;
  }

  /** acquire returns a handle on the provider of `key`, creating it with `create` if needed. */
  acquire(key: string, create: () => CredentialProvider): CredentialProvider {
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { provider: create(), references: 0 };
      this.#entries.set(key, entry);
    }
    entry.references++;
    const current = entry;
    const provider = current.provider;
    let closed = false;
    return {
      kind: provider.kind,
      getCredentials: (request?: CredentialRequest): Promise<Credentials> =>
        closed ? Promise.reject(this.#closedError()) : provider.getCredentials(request),
      invalidate: (rejected: Credentials): boolean | Promise<boolean> =>
        !closed && provider.invalidate ? provider.invalidate(rejected) : false,
      close: async (): Promise<void> => {
        if (closed) return;
        closed = true;
        current.references--;
        if (current.references === 0) {
          if (this.#entries.get(key) === current) this.#entries.delete(key);
          await provider.close?.();
        }
      },
    };
  }
}

/**
 * waitWithSignal resolves like `promise`, or rejects with `signal.reason` as soon as `signal`
 * aborts (the promise itself goes on: it is shared with other callers).
 */
export function waitWithSignal<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // This caller leaves at once; the shared promise must not end up rejected with no handler.
    promise.then(undefined, () => {});
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    // Handlers first: the shared promise is never left without one, whatever happens next.
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes the original rejection on
        reject(error);
      },
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
