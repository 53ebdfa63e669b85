import { checkKubeconfig } from '../argument-checks.js';

import type {
  AuthInfo,
  AuthProviderConfig,
  Cluster,
  Context,
  ExecConfig,
  Extensions,
  Kubeconfig,
  Preferences,
} from '../model/kubeconfig.js';

/** JsonObject is a plain JSON object as the encoder builds it (own properties only). */
export type JsonObject = { [key: string]: unknown };

/**
 * encodeKubeconfig turns the model into the serialized kubeconfig shape exactly as
 * `kubectl config view -o json` prints it: kebab-case keys in client-go's field order, entries
 * and map keys sorted by name (byte order, as Go sorts), `*-data` as standard base64, and
 * client-go's always-present fields (`server`, `cluster`, `user`, `exec.args`, …) included even
 * when empty. Empty lists are `null`, as kubectl prints them. Pure; the input is not changed.
 */
export function encodeKubeconfig(config: Kubeconfig): JsonObject {
  checkKubeconfig('encodeKubeconfig', 'config', config);
  const document: JsonObject = {
    kind: 'Config',
    apiVersion: 'v1',
    preferences: encodePreferences(config.preferences),
    clusters: namedList(config.clusters, 'cluster', encodeCluster),
    users: namedList(config.users, 'user', encodeAuthInfo),
    contexts: namedList(config.contexts, 'context', encodeContext),
    'current-context': config.currentContext,
  };
  const extensions = encodeExtensions(config.extensions);
  if (extensions) document.extensions = extensions;
  return document;
}

/** encodePreferences gives the serialized `preferences` stanza (`{}` when nothing is set). */
function encodePreferences(preferences: Preferences): JsonObject {
  const encoded: JsonObject = {};
  if (preferences.colors) encoded.colors = true;
  const extensions = encodeExtensions(preferences.extensions);
  if (extensions) encoded.extensions = extensions;
  return encoded;
}

/** encodeCluster gives one serialized `clusters[].cluster` stanza; `server` is always present. */
export function encodeCluster(cluster: Cluster): JsonObject {
  const encoded: JsonObject = { server: cluster.server ?? '' };
  text(encoded, 'tls-server-name', cluster.tlsServerName);
  flag(encoded, 'insecure-skip-tls-verify', cluster.insecureSkipTlsVerify);
  text(encoded, 'certificate-authority', cluster.certificateAuthority);
  bytes(encoded, 'certificate-authority-data', cluster.certificateAuthorityData);
  text(encoded, 'proxy-url', cluster.proxyUrl);
  flag(encoded, 'disable-compression', cluster.disableCompression);
  extensionsField(encoded, cluster.extensions);
  return encoded;
}

/** encodeAuthInfo gives one serialized `users[].user` stanza, leaving out unset fields. */
export function encodeAuthInfo(user: AuthInfo): JsonObject {
  const encoded: JsonObject = {};
  text(encoded, 'client-certificate', user.clientCertificate);
  bytes(encoded, 'client-certificate-data', user.clientCertificateData);
  text(encoded, 'client-key', user.clientKey);
  bytes(encoded, 'client-key-data', user.clientKeyData);
  text(encoded, 'token', user.token);
  text(encoded, 'tokenFile', user.tokenFile);
  text(encoded, 'as', user.impersonate);
  text(encoded, 'as-uid', user.impersonateUid);
  if (user.impersonateGroups?.length) encoded['as-groups'] = [...user.impersonateGroups];
  if (user.impersonateUserExtra?.size) {
    encoded['as-user-extra'] = sortedObject(
      [...user.impersonateUserExtra].map(([key, values]) => [key, [...values]]),
    );
  }
  text(encoded, 'username', user.username);
  text(encoded, 'password', user.password);
  if (user.authProvider) encoded['auth-provider'] = encodeAuthProvider(user.authProvider);
  if (user.exec) encoded.exec = encodeExec(user.exec);
  extensionsField(encoded, user.extensions);
  return encoded;
}

/** encodeContext gives one serialized `contexts[].context`; `cluster` and `user` always appear. */
export function encodeContext(context: Context): JsonObject {
  const encoded: JsonObject = { cluster: context.cluster, user: context.user };
  text(encoded, 'namespace', context.namespace);
  extensionsField(encoded, context.extensions);
  return encoded;
}

function encodeAuthProvider(provider: AuthProviderConfig): JsonObject {
  // client-go always prints `config` (no omitempty); nil and empty look alike in the model.
  return {
    name: provider.name,
    config: provider.config.size ? sortedObject([...provider.config]) : null,
  };
}

function encodeExec(exec: ExecConfig): JsonObject {
  const encoded: JsonObject = {
    command: exec.command,
    args: exec.args ? [...exec.args] : null,
    env: exec.env ? exec.env.map(({ name, value }) => ({ name, value })) : null,
  };
  text(encoded, 'apiVersion', exec.apiVersion);
  text(encoded, 'installHint', exec.installHint);
  encoded.provideClusterInfo = exec.provideClusterInfo;
  text(encoded, 'interactiveMode', exec.interactiveMode);
  return encoded;
}

function namedList<T>(
  entries: Map<string, T>,
  key: string,
  encode: (entry: T) => JsonObject,
): JsonObject[] | null {
  if (entries.size === 0) return null;
  return [...entries.keys()]
    .sort(compareBytes)
    .map((name) => ({ name, [key]: encode(entries.get(name) as T) }));
}

function encodeExtensions(extensions: Extensions | undefined): JsonObject[] | undefined {
  if (!extensions?.size) return undefined;
  return [...extensions.keys()]
    .sort(compareBytes)
    .map((name) => ({ name, extension: sortKeys(extensions.get(name)) }));
}

function extensionsField(encoded: JsonObject, extensions: Extensions | undefined) {
  const list = encodeExtensions(extensions);
  if (list) encoded.extensions = list;
}

function text(encoded: JsonObject, key: string, value: string | undefined) {
  if (value) encoded[key] = value;
}

function flag(encoded: JsonObject, key: string, value: boolean | undefined) {
  if (value) encoded[key] = true;
}

function bytes(encoded: JsonObject, key: string, value: Uint8Array | undefined) {
  if (value?.length) encoded[key] = Buffer.from(value).toString('base64');
}

/** sortKeys copies a JSON value with every object's keys sorted, as Go re-encodes a map. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    return sortedObject(Object.entries(value).map(([key, entry]) => [key, sortKeys(entry)]));
  }
  return value ?? null;
}

/** sortedObject builds an object from entries sorted by key; `__proto__` stays a plain key. */
function sortedObject(entries: [string, unknown][]): JsonObject {
  const object: JsonObject = {};
  for (const [key, value] of entries.sort(([left], [right]) => compareBytes(left, right))) {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

/**
 * compareBytes orders strings as Go does (UTF-8 byte order, which is code point order); plain
 * `<` compares UTF-16 code units and puts astral characters before U+E000–U+FFFF.
 */
export function compareBytes(left: string, right: string): number {
  let index = 0;
  for (;;) {
    const a = left.codePointAt(index);
    const b = right.codePointAt(index);
    if (a === undefined || b === undefined)
      return (a === undefined ? 0 : 1) - (b === undefined ? 0 : 1);
    if (a !== b) return a - b;
    index += a > 0xffff ? 2 : 1;
  }
}
