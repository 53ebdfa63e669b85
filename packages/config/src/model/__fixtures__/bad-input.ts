import { expect } from 'vitest';
import type { KubeconfigErrorCode } from '../../errors.js';
import { KubeconfigError, KubeError } from '../../errors.js';
import type { Kubeconfig } from '../kubeconfig.js';
import type { KubeconfigFile } from '../parse-kubeconfig.js';
import { parseKubeconfig } from '../parse-kubeconfig.js';

// Shared by the bad-input suites: what counts as an acceptable outcome, and sample documents.

/** The codes parsing one file may produce. */
const PARSE_ERROR_CODES: ReadonlySet<KubeconfigErrorCode> = new Set([
  'ERR_CONFIG_PARSE',
  'ERR_CONFIG_DUPLICATE_NAME',
]);

/** ParseOutcome is what parsing bad input may give: a well-formed model or a typed error. */
export type ParseOutcome =
  { ok: true; file: KubeconfigFile } | { ok: false; error: KubeconfigError };

/**
 * parseOutcome parses `source` and checks the only two acceptable results: a Kubeconfig of the
 * declared shape, or a KubeconfigError with a parse code naming `path`. Any other exception is
 * rethrown as is, so fast-check shrinks it and the test shows its stack.
 */
export function parseOutcome(source: string | Uint8Array, path = 'bad-input.yaml'): ParseOutcome {
  let file: KubeconfigFile;
  try {
    file = parseKubeconfig(source, path);
  } catch (error) {
    if (!KubeError.isInstance(error) || !(error instanceof KubeconfigError)) throw error;
    if (!PARSE_ERROR_CODES.has(error.code)) throw new Error(`unexpected code ${error.code}`);
    if (error.path !== path) throw new Error(`error names ${error.path}, not ${path}`);
    if (!error.message.includes(`"${path}"`)) throw new Error(`message lacks the path`);
    return { ok: false, error };
  }
  assertKubeconfigShape(file.config);
  return { ok: true, file };
}

/** expectParseError parses `source` and returns the KubeconfigError it must throw. */
export function expectParseError(source: string | Uint8Array, path = 'bad-input.yaml') {
  const outcome = parseOutcome(source, path);
  if (outcome.ok) expect.fail(`expected an error, got ${describeConfig(outcome.file.config)}`);
  return outcome.error;
}

/** expectParsed parses `source` and returns the Kubeconfig it must give. */
export function expectParsed(source: string | Uint8Array, path = 'bad-input.yaml'): Kubeconfig {
  const outcome = parseOutcome(source, path);
  if (!outcome.ok) expect.fail(`expected a config, got ${outcome.error.message}`);
  return outcome.file.config;
}

function describeConfig(config: Kubeconfig): string {
  return `a config with ${config.clusters.size} clusters, ${config.users.size} users`;
}

/**
 * assertKubeconfigShape checks that a decoded value really has the declared types, field by
 * field: a parser that lets a number or a Uint8Array through into a string field has a bug.
 */
function assertKubeconfigShape(config: Kubeconfig): void {
  const check = new ShapeCheck();
  check.object(config.preferences, 'preferences');
  check.optional(config.preferences.colors, 'boolean', 'preferences.colors');
  check.extensions(config.preferences.extensions, 'preferences.extensions');
  check.string(config.currentContext, 'current-context');
  check.extensions(config.extensions, 'extensions');
  for (const [name, cluster] of check.named(config.clusters, 'clusters')) {
    const at = `clusters.${name}`;
    check.object(cluster, at);
    for (const key of ['server', 'tlsServerName', 'certificateAuthority', 'proxyUrl'] as const)
      check.optional(cluster[key], 'string', `${at}.${key}`);
    for (const key of ['insecureSkipTlsVerify', 'disableCompression'] as const)
      check.optional(cluster[key], 'boolean', `${at}.${key}`);
    check.bytes(cluster.certificateAuthorityData, `${at}.certificateAuthorityData`);
    check.extensions(cluster.extensions, `${at}.extensions`);
  }
  for (const [name, user] of check.named(config.users, 'users')) {
    const at = `users.${name}`;
    check.object(user, at);
    const strings = [
      'clientCertificate',
      'clientKey',
      'token',
      'tokenFile',
      'impersonate',
      'impersonateUid',
      'username',
      'password',
    ] as const;
    for (const key of strings) check.optional(user[key], 'string', `${at}.${key}`);
    check.bytes(user.clientCertificateData, `${at}.clientCertificateData`);
    check.bytes(user.clientKeyData, `${at}.clientKeyData`);
    if (user.impersonateGroups !== undefined)
      check.strings(user.impersonateGroups, `${at}.impersonateGroups`);
    if (user.impersonateUserExtra !== undefined) {
      for (const [key, values] of check.named(user.impersonateUserExtra, `${at}.as-user-extra`))
        check.strings(values, `${at}.as-user-extra.${key}`);
    }
    if (user.authProvider !== undefined) {
      check.string(user.authProvider.name, `${at}.authProvider.name`);
      for (const [key, value] of check.named(user.authProvider.config, `${at}.authProvider`))
        check.string(value, `${at}.authProvider.config.${key}`);
    }
    if (user.exec !== undefined) {
      const exec = user.exec;
      check.string(exec.command, `${at}.exec.command`);
      check.string(exec.apiVersion, `${at}.exec.apiVersion`);
      check.optional(exec.provideClusterInfo, 'boolean', `${at}.exec.provideClusterInfo`);
      check.optional(exec.installHint, 'string', `${at}.exec.installHint`);
      check.optional(exec.interactiveMode, 'string', `${at}.exec.interactiveMode`);
      if (exec.args !== undefined) check.strings(exec.args, `${at}.exec.args`);
      for (const [index, variable] of (exec.env ?? []).entries()) {
        check.string(variable.name, `${at}.exec.env[${index}].name`);
        check.string(variable.value, `${at}.exec.env[${index}].value`);
      }
    }
    check.extensions(user.extensions, `${at}.extensions`);
  }
  for (const [name, context] of check.named(config.contexts, 'contexts')) {
    const at = `contexts.${name}`;
    check.object(context, at);
    check.string(context.cluster, `${at}.cluster`);
    check.string(context.user, `${at}.user`);
    check.optional(context.namespace, 'string', `${at}.namespace`);
    check.extensions(context.extensions, `${at}.extensions`);
  }
}

class ShapeCheck {
  /** named checks at run time what the type claims: a Map keyed by strings. */
  named<T>(map: Map<string, T>, at: string): Map<string, T> {
    if (!(map instanceof Map)) throw new Error(`${at} is not a Map`);
    for (const key of map.keys()) if (typeof key !== 'string') throw new Error(`${at} key type`);
    return map;
  }

  object(value: unknown, at: string): void {
    if (
      typeof value !== 'object' ||
      value === null ||
      Object.getPrototypeOf(value) !== Object.prototype
    )
      throw new Error(`${at} is not a plain object`);
  }

  string(value: unknown, at: string): void {
    if (typeof value !== 'string') throw new Error(`${at} is ${typeof value}, not a string`);
  }

  optional(value: unknown, type: 'string' | 'boolean', at: string): void {
    if (value !== undefined && typeof value !== type) throw new Error(`${at} is not a ${type}`);
  }

  strings(values: unknown, at: string): void {
    if (!Array.isArray(values)) throw new Error(`${at} is not an array`);
    values.forEach((value, index) => this.string(value, `${at}[${index}]`));
  }

  bytes(value: unknown, at: string): void {
    if (value !== undefined && !(value instanceof Uint8Array)) throw new Error(`${at} not bytes`);
  }

  extensions(value: Map<string, unknown> | undefined, at: string): void {
    if (value === undefined) return;
    for (const [name, extension] of this.named(value, at)) this.json(extension, `${at}.${name}`);
  }

  /** json accepts what a YAML document can hold once maps are plain objects. */
  private json(value: unknown, at: string): void {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return;
    if (Array.isArray(value))
      return value.forEach((item, index) => this.json(item, `${at}[${index}]`));
    // !!set keeps the yaml library's Set (kubectl makes a map of nulls); shape only, here.
    if (value instanceof Set) return;
    this.object(value, at);
    for (const [key, item] of Object.entries(value as object)) this.json(item, `${at}.${key}`);
  }
}

/** A small but complete kubeconfig: every field of every stanza is set once. */
export const COMPLETE_KUBECONFIG = `apiVersion: v1
kind: Config
preferences:
  colors: true
  extensions:
  - name: pref-extension
    extension: {a: 1}
clusters:
- name: production
  cluster:
    server: https://10.0.0.1:6443
    tls-server-name: kubernetes.default
    insecure-skip-tls-verify: false
    certificate-authority: ca.crt
    certificate-authority-data: ${Buffer.from('certificate authority').toString('base64')}
    proxy-url: http://proxy.local:3128
    disable-compression: true
    extensions:
    - name: cluster-extension
      extension: {b: [1, 2]}
users:
- name: admin
  user:
    client-certificate: client.crt
    client-certificate-data: ${Buffer.from('client certificate').toString('base64')}
    client-key: client.key
    client-key-data: ${Buffer.from('client key').toString('base64')}
    token: token-value-1234
    tokenFile: token.txt
    as: impersonated
    as-uid: "1000"
    as-groups: [system:masters, developers]
    as-user-extra:
      reason: [testing]
    username: admin
    password: password-value-5678
    extensions:
    - name: user-extension
      extension: "text"
- name: oidc
  user:
    auth-provider:
      name: oidc
      config:
        client-id: kubernetes
        id-token: id-token-value
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/credential-plugin
      args: [--cluster, production]
      env:
      - name: PLUGIN_MODE
        value: fast
      installHint: install the plugin
      provideClusterInfo: true
      interactiveMode: Never
contexts:
- name: production-admin
  context:
    cluster: production
    user: admin
    namespace: kube-system
    extensions:
    - name: context-extension
      extension: null
current-context: production-admin
extensions:
- name: top-extension
  extension: {c: true}
`;
