import { expectString } from '../checks/argument-checks.js';

/**
 * kubeconfigAuthProviderPersister returns a persister that writes a user's refreshed
 * auth-provider config into the kubeconfig file it came from (`origin`), as client-go's
 * `PersisterForUser` does: the file is re-read (alone, paths as written), every key of the new
 * config is set in `users[<userName>].user.auth-provider.config`, and @k/config's
 * `updateAuthProviderConfig` edits the file in place — comments, formatting and other entries
 * survive; the file is locked, replaced atomically and keeps its mode. Rejects with the writer's
 * `KubeconfigError` (whose message holds no secret); the OIDC provider then fails the request
 * without using the new tokens, as client-go.
 */
export function kubeconfigAuthProviderPersister(
  origin: string,
  userName: string,
): (config: Map<string, string>) => Promise<void> {
  expectString(origin, 'kubeconfigAuthProviderPersister', 'origin (the kubeconfig file)');
  expectString(userName, 'kubeconfigAuthProviderPersister', 'userName', true);
  return async (config) => {
    // Loaded on first use: the kubeconfig reader (and its YAML parser) stays out of the import
    // cost of every program that never refreshes an OIDC token.
    const { loadKubeconfig, updateAuthProviderConfig } = await import('@k/config');
    const loaded = await loadKubeconfig({ explicitPath: origin, resolvePaths: false });
    await updateAuthProviderConfig(loaded, userName, Object.fromEntries(config));
  };
}
