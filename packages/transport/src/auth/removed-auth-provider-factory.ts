import { invalidArgument } from '../checks/argument-checks.js';
import { TransportError } from '../errors.js';
import type { CredentialProvider, CredentialProviderFactory } from './credential-provider.js';

/** client-go's messages for the auth-providers it removed, word for word. */
const REMOVED_MESSAGES: Readonly<Record<'gcp' | 'azure', string>> = {
  gcp:
    'The gcp auth plugin has been removed.\n' +
    'Please use the "gke-gcloud-auth-plugin" kubectl/client-go credential plugin instead.\n' +
    'See https://cloud.google.com/blog/products/containers-kubernetes/kubectl-auth-changes-in-gke for further details',
  azure:
    'The azure auth plugin has been removed.\n' +
    'Please use the https://github.com/Azure/kubelogin kubectl/client-go credential plugin instead.\n' +
    'See https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins for further details',
};

/**
 * RemovedAuthProviderFactory stands for an auth-provider client-go removed (`gcp`, `azure`):
 * selecting it fails transport creation with client-go's message, which names the exec
 * credential plugin to use instead (`ERR_TRANSPORT_AUTH_PROVIDER_REMOVED`).
 */
export class RemovedAuthProviderFactory implements CredentialProviderFactory {
  readonly kind: 'gcp' | 'azure';

  constructor(kind: 'gcp' | 'azure') {
    if (kind !== 'gcp' && kind !== 'azure') {
      throw invalidArgument('RemovedAuthProviderFactory', 'kind', '"gcp" or "azure"', kind);
    }
    this.kind = kind;
  }

  create(): CredentialProvider {
    throw new TransportError('ERR_TRANSPORT_AUTH_PROVIDER_REMOVED', REMOVED_MESSAGES[this.kind]);
  }
}
