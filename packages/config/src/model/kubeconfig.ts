/**
 * The kubeconfig document model (`apiVersion: v1`, `kind: Config`), field for field as client-go
 * reads it. Keys are camel-cased from the file's kebab-case (`certificate-authority-data` →
 * `certificateAuthorityData`); `*-data` fields hold the decoded bytes. Collections keyed by a
 * name are `Map`s, so no name (not even `__proto__`) can collide with an object property.
 *
 * These are plain data: nothing here reads files or the network. Objects this package returns
 * print without their credentials (`util.inspect`, `JSON.stringify`; see hideKubeconfigSecrets).
 */

import { hideKubeconfigSecrets } from './hide-kubeconfig-secrets.js';

/** Extensions are opaque JSON values keyed by name; they round-trip untouched. */
export type Extensions = Map<string, unknown>;

/** Cluster is one `clusters[].cluster` stanza: where the API server is and how to trust it. */
export interface Cluster {
  server?: string | undefined;
  tlsServerName?: string | undefined;
  insecureSkipTlsVerify?: boolean | undefined;
  /** certificateAuthority is a path; relative paths resolve against the defining file's directory. */
  certificateAuthority?: string | undefined;
  certificateAuthorityData?: Uint8Array | undefined;
  proxyUrl?: string | undefined;
  disableCompression?: boolean | undefined;
  extensions?: Extensions | undefined;
}

/** ExecEnvVar is one `exec.env[]` entry passed to a credential plugin. */
export interface ExecEnvVar {
  name: string;
  value: string;
}

/** ExecInteractiveMode says whether an exec plugin may use the terminal. */
export type ExecInteractiveMode = 'Never' | 'IfAvailable' | 'Always';

/** ExecConfig is a `users[].user.exec` stanza: a credential plugin to run. */
export interface ExecConfig {
  /** command is a program name looked up on PATH, or a path (resolved like other paths when it has a separator). */
  command: string;
  args?: string[] | undefined;
  env?: ExecEnvVar[] | undefined;
  apiVersion: string;
  installHint?: string | undefined;
  provideClusterInfo: boolean;
  /** interactiveMode defaults to `IfAvailable` for v1beta1/v1alpha1 plugins and has no default for v1. */
  interactiveMode?: ExecInteractiveMode | (string & {}) | undefined;
}

/** AuthProviderConfig is a `users[].user.auth-provider` stanza (for example `oidc`). */
export interface AuthProviderConfig {
  name: string;
  config: Map<string, string>;
}

/** AuthInfo is one `users[].user` stanza: who the client is. */
export interface AuthInfo {
  clientCertificate?: string | undefined;
  clientCertificateData?: Uint8Array | undefined;
  clientKey?: string | undefined;
  clientKeyData?: Uint8Array | undefined;
  token?: string | undefined;
  tokenFile?: string | undefined;
  /** impersonate is the `as` key. */
  impersonate?: string | undefined;
  /** impersonateUid is the `as-uid` key. */
  impersonateUid?: string | undefined;
  /** impersonateGroups is the `as-groups` key. */
  impersonateGroups?: string[] | undefined;
  /** impersonateUserExtra is the `as-user-extra` key. */
  impersonateUserExtra?: Map<string, string[]> | undefined;
  username?: string | undefined;
  password?: string | undefined;
  authProvider?: AuthProviderConfig | undefined;
  exec?: ExecConfig | undefined;
  extensions?: Extensions | undefined;
}

/** Context is one `contexts[].context` stanza: a cluster, a user and a default namespace. */
export interface Context {
  cluster: string;
  user: string;
  namespace?: string | undefined;
  extensions?: Extensions | undefined;
}

/** Preferences is the top-level `preferences` stanza. */
export interface Preferences {
  colors?: boolean | undefined;
  extensions?: Extensions | undefined;
}

/**
 * Kubeconfig is one kubeconfig document, or several merged into one. Map iteration order is
 * the order of first definition; `kubectl config view` sorts by name when it prints. Printed
 * with `util.inspect` or `JSON.stringify`, the ones this package returns hide credentials, as
 * `ResolvedConfig` does; writing one back writes the real values.
 */
export interface Kubeconfig {
  preferences: Preferences;
  clusters: Map<string, Cluster>;
  users: Map<string, AuthInfo>;
  contexts: Map<string, Context>;
  /** currentContext is `''` when no file sets it. */
  currentContext: string;
  extensions: Extensions;
}

/** emptyKubeconfig returns a Kubeconfig with no entries (printed without secrets, see hideKubeconfigSecrets). */
export function emptyKubeconfig(): Kubeconfig {
  return hideKubeconfigSecrets({
    preferences: {},
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    currentContext: '',
    extensions: new Map(),
  });
}
