/**
 * KUBERNETES_VERSION is the one pinned Kubernetes release (without the leading `v`). It is the newest
 * patch on the module proxy that builds with Go 1.26; see README.md ("Why this version") for the
 * releases that were tried.
 */
export const KUBERNETES_VERSION = '1.37.2';

/**
 * KWOK_VERSION is the pinned sigs.k8s.io/kwok release whose `kwok` controller simulates the nodes
 * (its go.mod needs Go 1.26 and has no replace directives).
 */
export const KWOK_VERSION = 'v0.8.0';
