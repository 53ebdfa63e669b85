/**
 * KubeconfigCluster is where a test kubeconfig points: a server and the CA that signed it, and
 * the proxy to reach it through (`proxy-url`), if any.
 */
export interface KubeconfigCluster {
  server: string;
  caPem: string;
  proxyUrl?: string;
}

/**
 * singleContextKubeconfig is the text of a kubeconfig (JSON, which is YAML) with one cluster
 * `testenv`, one user `userName` with the `user` stanza given (e.g. an `auth-provider`), and one
 * context `contextName`, the current one.
 */
export function singleContextKubeconfig(
  cluster: KubeconfigCluster,
  userName: string,
  user: Readonly<Record<string, unknown>>,
  contextName = 'test',
): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'testenv',
        cluster: {
          server: cluster.server,
          'certificate-authority-data': Buffer.from(cluster.caPem).toString('base64'),
          ...(cluster.proxyUrl ? { 'proxy-url': cluster.proxyUrl } : {}),
        },
      },
    ],
    users: [{ name: userName, user }],
    contexts: [{ name: contextName, context: { cluster: 'testenv', user: userName } }],
    'current-context': contextName,
  });
}
