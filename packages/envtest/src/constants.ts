import { KUBERNETES_VERSION as ENGINE_KUBERNETES_VERSION } from '@k/testenv';

/** ENVTEST_KUBECONFIG_ENV names the variable that points tests at a running plane's kubeconfig. */
export const ENVTEST_KUBECONFIG_ENV = 'K_ENVTEST_KUBECONFIG';

/** ENVTEST_CACHE_ENV names the variable that overrides where built binaries are cached. */
export const ENVTEST_CACHE_ENV = 'K_ENVTEST_CACHE';

/** KUBERNETES_VERSION is the Kubernetes release `k-envtest build` builds (and the cache holds). */
export const KUBERNETES_VERSION: string = ENGINE_KUBERNETES_VERSION;
