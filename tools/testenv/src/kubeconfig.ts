import { writeFile } from 'node:fs/promises';

/** KubeconfigUser is one user entry: a client certificate or a bearer token. */
export type KubeconfigUser =
  | { readonly name: string; readonly certPem: string; readonly keyPem: string }
  | { readonly name: string; readonly token: string };

/** KubeconfigOptions describe the kubeconfig {@link renderKubeconfig} writes. */
export interface KubeconfigOptions {
  readonly clusterName: string;
  readonly server: string;
  readonly caPem: string;
  /** One context per user, named like the user. */
  readonly users: readonly KubeconfigUser[];
  /** Name of the current context (must be one of the users). */
  readonly currentContext: string;
  /** Namespace of every context (default `default`). */
  readonly namespace?: string;
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
// JSON strings are valid YAML double-quoted scalars, so quoting through JSON is always safe.
const quote = (text: string) => JSON.stringify(text);

/**
 * renderKubeconfig renders a kubeconfig (YAML) with one cluster, one user per entry and one context
 * per user, all certificate data inline (`*-data`, base64), so the file stands alone. Throws when the
 * current context names no user.
 */
export function renderKubeconfig(options: KubeconfigOptions): string {
  if (!options.users.some((user) => user.name === options.currentContext)) {
    throw new Error(`current context ${options.currentContext} is not one of the users`);
  }
  const namespace = options.namespace ?? 'default';
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'preferences: {}',
    'clusters:',
    `- name: ${quote(options.clusterName)}`,
    '  cluster:',
    `    server: ${quote(options.server)}`,
    `    certificate-authority-data: ${base64(options.caPem)}`,
    'users:',
  ];
  for (const user of options.users) {
    lines.push(`- name: ${quote(user.name)}`, '  user:');
    if ('token' in user) lines.push(`    token: ${quote(user.token)}`);
    else
      lines.push(
        `    client-certificate-data: ${base64(user.certPem)}`,
        `    client-key-data: ${base64(user.keyPem)}`,
      );
  }
  lines.push('contexts:');
  for (const user of options.users) {
    lines.push(
      `- name: ${quote(user.name)}`,
      '  context:',
      `    cluster: ${quote(options.clusterName)}`,
      `    user: ${quote(user.name)}`,
      `    namespace: ${quote(namespace)}`,
    );
  }
  lines.push(`current-context: ${quote(options.currentContext)}`, '');
  return lines.join('\n');
}

/** PlaneKubeconfigSource is what {@link planeKubeconfig} needs: where the plane is and its users. */
export interface PlaneKubeconfigSource {
  readonly server: string;
  readonly caPem: string;
  readonly users: {
    readonly admin: { readonly certPem: string; readonly keyPem: string };
    readonly alice: { readonly certPem: string; readonly keyPem: string };
    readonly tester: { readonly token: string };
  };
}

/**
 * planeKubeconfig describes a control plane's kubeconfig: cluster `k-testenv` at `server`, and
 * one context per user (`admin`, `alice`, `tester`), `admin` current.
 */
export function planeKubeconfig(source: PlaneKubeconfigSource): KubeconfigOptions {
  const { users } = source;
  return {
    clusterName: 'k-testenv',
    server: source.server,
    caPem: source.caPem,
    users: [
      { name: 'admin', ...users.admin },
      { name: 'alice', ...users.alice },
      { name: 'tester', ...users.tester },
    ],
    currentContext: 'admin',
  };
}

/** writeKubeconfig writes {@link renderKubeconfig}'s output to `path` with mode 0600 (it holds keys). */
export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<void> {
  await writeFile(path, renderKubeconfig(options), { mode: 0o600 });
}
