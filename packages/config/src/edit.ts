// @k/config/edit: write changes back into the kubeconfig files they came from, in place, under
// client-go's lock (`kubectl config use-context`, `set-context`, refreshed OIDC tokens).
export {
  modifyKubeconfig,
  setCurrentContext,
  setContext,
  updateUser,
  updateAuthProviderConfig,
} from './write/modify-kubeconfig.js';
export type {
  ContextChanges,
  ModifyKubeconfigOptions,
  ModifyKubeconfigResult,
} from './write/modify-kubeconfig.js';
export { defaultKubeconfigFile } from './write/default-kubeconfig-file.js';
// The persister @k/transport's `persistAuthProviderConfig` option takes.
export { authProviderPersisterFor } from './write/auth-provider-persister.js';
export type { AuthProviderPersister } from './write/auth-provider-persister.js';
