import { checkObject } from '../argument-checks.js';
import { loadKubeconfig } from '../load/load-kubeconfig.js';
import type { ResolvedConfig } from '../resolve/resolved-config.js';
import { updateAuthProviderConfig } from './modify-kubeconfig.js';

/**
 * AuthProviderPersister writes a user's refreshed auth-provider config (for example new OIDC
 * tokens) back to where it came from. It is what @k/transport's `persistAuthProviderConfig`
 * option takes.
 */
export type AuthProviderPersister = (config: Map<string, string>) => Promise<void>;

/**
 * authProviderPersisterFor returns the persister for the user `config` was resolved for, as
 * client-go's clientcmd sets `rest.Config.AuthConfigPersister` (`PersisterForUser`): when that
 * user has an `auth-provider` read from a kubeconfig file (`auth.origin`), the persister re-reads
 * that file alone (paths as written), sets every key of the new config in
 * `users[<userName>].user.auth-provider.config` and edits the file in place with
 * {@link updateAuthProviderConfig}: comments, formatting and other entries survive, the file is
 * locked, replaced atomically and keeps its mode. It rejects with the writer's `KubeconfigError`
 * (whose message holds no secret); the OIDC provider then fails the request without using the
 * new tokens, as client-go does.
 *
 * Returns `undefined` when there is nothing to write back to — another kind of auth, an
 * in-cluster config, a config built by hand without `origin` — so refreshed tokens live in
 * memory only (client-go's no-op persister). The file and user are taken from `config` now;
 * later changes to `config` do not move them.
 *
 * Hand it to the transport: `createTransport(config, { persistAuthProviderConfig:
 * authProviderPersisterFor(config) })`.
 */
export function authProviderPersisterFor(
  config: ResolvedConfig,
): AuthProviderPersister | undefined {
  const where = 'authProviderPersisterFor';
  checkObject(where, 'config', config, 'a ResolvedConfig (what resolveConfig returns)');
  checkObject(where, 'config.auth', config.auth, "the config's auth method (an object with kind)");
  const auth = config.auth;
  if (auth.kind !== 'auth-provider' || typeof auth.origin !== 'string' || auth.origin === '') {
    return undefined;
  }
  const { origin, userName } = auth;
  return async (entries) => {
    const loaded = await loadKubeconfig({ explicitPath: origin, resolvePaths: false });
    await updateAuthProviderConfig(loaded, userName, Object.fromEntries(entries));
  };
}
