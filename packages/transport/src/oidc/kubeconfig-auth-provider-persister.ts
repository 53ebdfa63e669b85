import * as kubeconfig from '@k/config';
import type { LoadedKubeconfig } from '@k/config';

type UpdateAuthProviderConfig = (
  loaded: LoadedKubeconfig,
  userName: string,
  entries: Readonly<Record<string, string | undefined>>,
) => Promise<unknown>;

/**
 * kubeconfigAuthProviderPersister returns a persister that writes a user's refreshed
 * auth-provider config into the kubeconfig file it came from (`origin`), as client-go's
 * `PersisterForUser` does: the file is re-read, every key of the new config is set in
 * `users[<userName>].user.auth-provider.config`, and @k/config's writer edits the file in place
 * (comments, formatting and other entries survive; locked, atomic, mode kept). The writer is
 * looked up at call time, so this works with any @k/config that exports
 * `updateAuthProviderConfig`; with one that does not, persisting fails with a clear error (and
 * the OIDC provider then does not use the new tokens, as client-go).
 */
export function kubeconfigAuthProviderPersister(
  origin: string,
  userName: string,
): (config: Map<string, string>) => Promise<void> {
  return async (config) => {
    const update = (
      kubeconfig as unknown as { updateAuthProviderConfig?: UpdateAuthProviderConfig }
    ).updateAuthProviderConfig;
    if (typeof update !== 'function') {
      throw new Error(
        `cannot write ${origin}: @k/config does not export updateAuthProviderConfig (its kubeconfig writer)`,
      );
    }
    const loaded = await kubeconfig.loadKubeconfig({ explicitPath: origin, resolvePaths: false });
    await update(loaded, userName, Object.fromEntries(config));
  };
}
