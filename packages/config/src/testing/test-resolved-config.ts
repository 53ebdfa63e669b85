import type { ResolvedConfig } from '../resolve/resolved-config.js';

/**
 * testResolvedConfig is a `ResolvedConfig` for `server` as `resolveConfig` returns it for a plain
 * kubeconfig (context, cluster and user `test`, namespace `default`, no TLS material, no auth),
 * with `overrides` on top (one passed as `undefined` keeps the value): for tests that need a
 * configuration but not a kubeconfig file.
 */
export function testResolvedConfig(
  server: string,
  overrides: Partial<ResolvedConfig> = {},
): ResolvedConfig {
  return {
    server,
    contextName: 'test',
    clusterName: 'test',
    userName: 'test',
    namespace: 'default',
    namespaceExplicit: false,
    tls: { insecure: false },
    auth: { kind: 'none' },
    disableCompression: false,
    source: 'kubeconfig',
    // An override passed as undefined is unset: it keeps the value above.
    ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)),
  };
}
