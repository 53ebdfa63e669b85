import type { BasicAuth } from '@k/config';
import { expectAuthKind, expectFactoryContext, expectString } from '../checks/argument-checks.js';
import type {
  CredentialProvider,
  CredentialProviderContext,
  CredentialProviderFactory,
  Credentials,
} from './credential-provider.js';

/**
 * BasicCredentialProvider hands out `Authorization: Basic base64(username:password)` (the
 * password may be empty). Immutable: safe for concurrent requests; a 401 is never replayed.
 */
export class BasicCredentialProvider implements CredentialProvider {
  readonly kind = 'basic';
  readonly #credentials: Credentials;

  constructor(username: string, password: string) {
    expectString(username, 'BasicCredentialProvider', 'username', true);
    expectString(password, 'BasicCredentialProvider', 'password', true);
    const encoded = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
    this.#credentials = { authorization: `Basic ${encoded}` };
  }

  getCredentials(): Promise<Credentials> {
    return Promise.resolve(this.#credentials);
  }

  invalidate(): boolean {
    return false;
  }
}

/** BasicCredentialProviderFactory builds a {@link BasicCredentialProvider} for `basic` users. */
export class BasicCredentialProviderFactory implements CredentialProviderFactory {
  readonly kind = 'basic';

  create(context: CredentialProviderContext): CredentialProvider {
    const where = 'BasicCredentialProviderFactory.create';
    expectFactoryContext(context, where);
    expectAuthKind(context.config, 'basic', where, 'context.config');
    const auth = context.config.auth as BasicAuth;
    return new BasicCredentialProvider(auth.username, auth.password);
  }
}
