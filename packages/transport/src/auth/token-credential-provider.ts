import {
  expectAuthKind,
  expectFactoryContext,
  expectOptionalString,
  expectRecord,
} from '../checks/argument-checks.js';
import type { TokenAuth } from '@k/config';
import type {
  CredentialProvider,
  CredentialProviderContext,
  CredentialProviderFactory,
  Credentials,
} from './credential-provider.js';
import {
  CachedTokenFile,
  checkCachedTokenFileOptions,
  type CachedTokenFileOptions,
} from './cached-token-file.js';

/** TokenCredentialProviderOptions configure the token provider (tests shorten the interval). */
export interface TokenCredentialProviderOptions {
  /** token is the static bearer token (kubeconfig `token`). */
  token?: string | undefined;
  /** tokenFile is the file holding the token (kubeconfig `tokenFile`); it wins over `token`. */
  tokenFile?: string | undefined;
  /** tokenFileOptions set the re-read interval, clock and reader of the token file. */
  tokenFileOptions?: CachedTokenFileOptions | undefined;
}

/**
 * TokenCredentialProvider hands out `Authorization: Bearer <token>`. With a token file the file
 * is authoritative and re-read as {@link CachedTokenFile} describes (at most about once a
 * minute); the static token is used only while the file has never been read successfully. Built
 * without a static token, it reads the file once right away so a missing file fails transport
 * creation (client-go's rule).
 *
 * On a 401 it re-reads the token file at once and asks for a replay only when the file now
 * holds a different token (a static token is never replayed).
 *
 * Concurrency: safe for concurrent requests; file reads are single-flight.
 */
export class TokenCredentialProvider implements CredentialProvider {
  readonly kind = 'token';
  readonly #token: string | undefined;
  readonly #file: CachedTokenFile | undefined;
  readonly #static: Promise<Credentials>;

  constructor(options: TokenCredentialProviderOptions) {
    const where = 'TokenCredentialProvider';
    expectRecord(
      options,
      where,
      'options',
      'an object ({ token?, tokenFile?, tokenFileOptions? })',
    );
    expectOptionalString(options.token, where, 'options.token');
    expectOptionalString(options.tokenFile, where, 'options.tokenFile');
    this.#token = options.token || undefined;
    this.#static = Promise.resolve(this.#token ? { authorization: `Bearer ${this.#token}` } : {});
    if (options.tokenFile) {
      this.#file = new CachedTokenFile(options.tokenFile, options.tokenFileOptions);
      if (this.#token === undefined) this.#file.readNow();
    }
  }

  getCredentials(): Promise<Credentials> {
    if (!this.#file) return this.#static;
    return this.#currentToken().then((token) =>
      token === undefined ? {} : { authorization: `Bearer ${token}` },
    );
  }

  async invalidate(rejected: Credentials): Promise<boolean> {
    if (!this.#file || !rejected.authorization) return false;
    try {
      const token = await this.#file.refreshNow();
      return `Bearer ${token}` !== rejected.authorization;
    } catch {
      return false;
    }
  }

  async #currentToken(): Promise<string | undefined> {
    if (!this.#file) return this.#token;
    try {
      return await this.#file.token();
    } catch (error) {
      if (this.#token !== undefined) return this.#token;
      throw error;
    }
  }
}

/**
 * TokenCredentialProviderFactory builds a {@link TokenCredentialProvider} for users whose
 * resolved auth is `token` (kind `token`). Options apply to every provider it builds.
 */
export class TokenCredentialProviderFactory implements CredentialProviderFactory {
  readonly kind = 'token';
  readonly #options: CachedTokenFileOptions;

  constructor(options: CachedTokenFileOptions = {}) {
    checkCachedTokenFileOptions(options, 'TokenCredentialProviderFactory');
    this.#options = options;
  }

  create(context: CredentialProviderContext): CredentialProvider {
    const where = 'TokenCredentialProviderFactory.create';
    expectFactoryContext(context, where);
    expectAuthKind(context.config, 'token', where, 'context.config');
    const auth = context.config.auth as TokenAuth;
    return new TokenCredentialProvider({
      token: auth.token,
      tokenFile: auth.tokenFile,
      // A `now` passed as undefined is unset: the context's clock applies.
      tokenFileOptions: { ...this.#options, now: this.#options.now ?? context.now },
    });
  }
}
