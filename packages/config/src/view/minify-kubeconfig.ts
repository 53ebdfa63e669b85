import { checkKubeconfig, checkString, optional } from '../argument-checks.js';

import { KubeconfigError } from '../errors.js';
import { hideKubeconfigSecrets } from '../model/hide-kubeconfig-secrets.js';
import type { Kubeconfig } from '../model/kubeconfig.js';

/**
 * minifyKubeconfig keeps only one context and the cluster and user it names, as
 * `kubectl config view --minify [--context NAME]` does (client-go's MinifyConfig). The context
 * is `contextName` when given (it then also becomes `current-context`), else the current
 * context. A context with an empty cluster or user name keeps no cluster or user. Preferences
 * and extensions are kept. Throws `ERR_CONFIG_NOT_FOUND` with kubectl's messages when
 * there is no current context or the context, its cluster or its user does not exist.
 * Returns a new Kubeconfig.
 */
export function minifyKubeconfig(config: Kubeconfig, contextName?: string): Kubeconfig {
  checkKubeconfig('minifyKubeconfig', 'config', config);
  optional(checkString)('minifyKubeconfig', 'contextName', contextName);
  const currentContext = contextName || config.currentContext;
  if (!currentContext) {
    throw new KubeconfigError(
      'ERR_CONFIG_NOT_FOUND',
      'current-context must exist in order to minify',
    );
  }
  const context = config.contexts.get(currentContext);
  if (!context) {
    throw new KubeconfigError('ERR_CONFIG_NOT_FOUND', `cannot locate context ${currentContext}`, {
      entry: currentContext,
    });
  }
  const minified: Kubeconfig = {
    ...config,
    currentContext,
    contexts: new Map([[currentContext, context]]),
    clusters: new Map(),
    users: new Map(),
  };
  if (context.cluster) {
    const cluster = config.clusters.get(context.cluster);
    if (!cluster) {
      throw new KubeconfigError(
        'ERR_CONFIG_NOT_FOUND',
        `cannot locate cluster ${context.cluster}`,
        {
          entry: context.cluster,
        },
      );
    }
    minified.clusters.set(context.cluster, cluster);
  }
  if (context.user) {
    const user = config.users.get(context.user);
    if (!user) {
      throw new KubeconfigError('ERR_CONFIG_NOT_FOUND', `cannot locate user ${context.user}`, {
        entry: context.user,
      });
    }
    minified.users.set(context.user, user);
  }
  return hideKubeconfigSecrets(minified);
}
