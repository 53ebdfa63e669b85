import { KubeconfigError } from '../errors.js';
import type {
  AuthInfo,
  AuthProviderConfig,
  Cluster,
  Context,
  ExecConfig,
  ExecEnvVar,
  Extensions,
  Kubeconfig,
  Preferences,
} from './kubeconfig.js';
import { hideKubeconfigSecrets } from './hide-kubeconfig-secrets.js';
import { emptyKubeconfig } from './kubeconfig.js';

/**
 * decodeKubeconfig turns a parsed YAML/JSON value (maps as `Map`) into a {@link Kubeconfig},
 * with client-go's rules: unknown fields are ignored, a value of the wrong type is an error,
 * `null` means "not set", `*-data` fields are standard base64, and a name listed twice in one
 * file is an error. Error messages name the file and the field, never a value.
 */
export function decodeKubeconfig(value: unknown, path: string): Kubeconfig {
  const decoder = new Decoder(path);
  return decoder.document(value);
}

type Fields = Map<unknown, unknown>;

class Decoder {
  constructor(private readonly path: string) {}

  document(value: unknown): Kubeconfig {
    const config = emptyKubeconfig();
    if (value === null || value === undefined) return config;
    const fields = this.map(value, 'the document');
    // Missing means v1/Config; any other version or kind is not registered in kubectl's scheme.
    const apiVersion = this.optionalString(fields, 'apiVersion', 'apiVersion') ?? 'v1';
    const kind = this.optionalString(fields, 'kind', 'kind') ?? 'Config';
    if (apiVersion !== 'v1' || kind !== 'Config') {
      throw new KubeconfigError(
        'ERR_CONFIG_PARSE',
        `error loading config file "${this.path}": no kind "${kind}" is registered for version "${apiVersion}"`,
        { path: this.path },
      );
    }
    config.preferences = this.preferences(fields.get('preferences'));
    config.clusters = this.namedList(fields.get('clusters'), 'clusters', 'cluster', (entry, at) =>
      this.cluster(entry, at),
    );
    config.users = this.namedList(fields.get('users'), 'users', 'user', (entry, at) =>
      this.authInfo(entry, at),
    );
    config.contexts = this.namedList(fields.get('contexts'), 'contexts', 'context', (entry, at) =>
      this.context(entry, at),
    );
    config.currentContext = this.optionalString(fields, 'current-context', 'current-context') ?? '';
    config.extensions =
      this.extensions(fields.get('extensions'), 'extensions') ?? new Map<string, unknown>();
    return hideKubeconfigSecrets(config);
  }

  private preferences(value: unknown): Preferences {
    if (value === null || value === undefined) return {};
    const fields = this.map(value, 'preferences');
    const preferences: Preferences = {};
    const colors = this.optionalBoolean(fields, 'colors', 'preferences.colors');
    if (colors !== undefined) preferences.colors = colors;
    const extensions = this.extensions(fields.get('extensions'), 'preferences.extensions');
    if (extensions) preferences.extensions = extensions;
    return preferences;
  }

  private cluster(value: unknown, at: string): Cluster {
    const cluster: Cluster = {};
    if (value === null || value === undefined) return cluster;
    const fields = this.map(value, at);
    assign(cluster, 'server', this.optionalString(fields, 'server', `${at}.server`));
    assign(
      cluster,
      'tlsServerName',
      this.optionalString(fields, 'tls-server-name', `${at}.tls-server-name`),
    );
    assign(
      cluster,
      'insecureSkipTlsVerify',
      this.optionalBoolean(fields, 'insecure-skip-tls-verify', `${at}.insecure-skip-tls-verify`),
    );
    assign(
      cluster,
      'certificateAuthority',
      this.optionalString(fields, 'certificate-authority', `${at}.certificate-authority`),
    );
    assign(
      cluster,
      'certificateAuthorityData',
      this.optionalBytes(fields, 'certificate-authority-data', `${at}.certificate-authority-data`),
    );
    assign(cluster, 'proxyUrl', this.optionalString(fields, 'proxy-url', `${at}.proxy-url`));
    assign(
      cluster,
      'disableCompression',
      this.optionalBoolean(fields, 'disable-compression', `${at}.disable-compression`),
    );
    assign(cluster, 'extensions', this.extensions(fields.get('extensions'), `${at}.extensions`));
    return cluster;
  }

  private authInfo(value: unknown, at: string): AuthInfo {
    const user: AuthInfo = {};
    if (value === null || value === undefined) return user;
    const fields = this.map(value, at);
    const text = (key: string) => this.optionalString(fields, key, `${at}.${key}`);
    const bytes = (key: string) => this.optionalBytes(fields, key, `${at}.${key}`);
    assign(user, 'clientCertificate', text('client-certificate'));
    assign(user, 'clientCertificateData', bytes('client-certificate-data'));
    assign(user, 'clientKey', text('client-key'));
    assign(user, 'clientKeyData', bytes('client-key-data'));
    assign(user, 'token', text('token'));
    assign(user, 'tokenFile', text('tokenFile'));
    assign(user, 'impersonate', text('as'));
    assign(user, 'impersonateUid', text('as-uid'));
    assign(
      user,
      'impersonateGroups',
      this.optionalStringList(fields, 'as-groups', `${at}.as-groups`),
    );
    assign(
      user,
      'impersonateUserExtra',
      this.optionalStringListMap(fields.get('as-user-extra'), `${at}.as-user-extra`),
    );
    assign(user, 'username', text('username'));
    assign(user, 'password', text('password'));
    assign(
      user,
      'authProvider',
      this.authProvider(fields.get('auth-provider'), `${at}.auth-provider`),
    );
    assign(user, 'exec', this.exec(fields.get('exec'), `${at}.exec`));
    assign(user, 'extensions', this.extensions(fields.get('extensions'), `${at}.extensions`));
    return user;
  }

  private authProvider(value: unknown, at: string): AuthProviderConfig | undefined {
    if (value === null || value === undefined) return undefined;
    const fields = this.map(value, at);
    const provider: AuthProviderConfig = {
      name: this.optionalString(fields, 'name', `${at}.name`) ?? '',
      config: new Map(),
    };
    const config = fields.get('config');
    if (config !== null && config !== undefined) {
      for (const [key, entry] of this.map(config, `${at}.config`)) {
        const name = String(key);
        provider.config.set(name, this.string(entry, `${at}.config.${name}`) ?? '');
      }
    }
    return provider;
  }

  private exec(value: unknown, at: string): ExecConfig | undefined {
    if (value === null || value === undefined) return undefined;
    const fields = this.map(value, at);
    const apiVersion = this.optionalString(fields, 'apiVersion', `${at}.apiVersion`) ?? '';
    const exec: ExecConfig = {
      command: this.optionalString(fields, 'command', `${at}.command`) ?? '',
      apiVersion,
      provideClusterInfo:
        this.optionalBoolean(fields, 'provideClusterInfo', `${at}.provideClusterInfo`) ?? false,
    };
    assign(exec, 'args', this.optionalStringList(fields, 'args', `${at}.args`));
    const env = fields.get('env');
    if (env !== null && env !== undefined) {
      exec.env = this.list(env, `${at}.env`).map((item, index): ExecEnvVar => {
        const entryAt = `${at}.env[${index}]`;
        if (item === null || item === undefined) return { name: '', value: '' };
        const entry = this.map(item, entryAt);
        return {
          name: this.optionalString(entry, 'name', `${entryAt}.name`) ?? '',
          value: this.optionalString(entry, 'value', `${entryAt}.value`) ?? '',
        };
      });
    }
    assign(exec, 'installHint', this.optionalString(fields, 'installHint', `${at}.installHint`));
    let interactiveMode = this.optionalString(fields, 'interactiveMode', `${at}.interactiveMode`);
    // client-go defaults the mode only for the older plugin API versions.
    if (
      !interactiveMode &&
      (apiVersion === 'client.authentication.k8s.io/v1beta1' ||
        apiVersion === 'client.authentication.k8s.io/v1alpha1')
    ) {
      interactiveMode = 'IfAvailable';
    }
    assign(exec, 'interactiveMode', interactiveMode);
    return exec;
  }

  private context(value: unknown, at: string): Context {
    const context: Context = { cluster: '', user: '' };
    if (value === null || value === undefined) return context;
    const fields = this.map(value, at);
    context.cluster = this.optionalString(fields, 'cluster', `${at}.cluster`) ?? '';
    context.user = this.optionalString(fields, 'user', `${at}.user`) ?? '';
    assign(context, 'namespace', this.optionalString(fields, 'namespace', `${at}.namespace`));
    assign(context, 'extensions', this.extensions(fields.get('extensions'), `${at}.extensions`));
    return context;
  }

  private namedList<T>(
    value: unknown,
    listKey: string,
    itemKey: string,
    decodeItem: (item: unknown, at: string) => T,
  ): Map<string, T> {
    const entries = new Map<string, T>();
    if (value === null || value === undefined) return entries;
    this.list(value, listKey).forEach((item, index) => {
      const at = `${listKey}[${index}]`;
      const fields = item === null || item === undefined ? new Map() : this.map(item, at);
      const name = this.optionalString(fields, 'name', `${at}.name`) ?? '';
      if (entries.has(name)) {
        throw new KubeconfigError(
          'ERR_CONFIG_DUPLICATE_NAME',
          `error loading config file "${this.path}": duplicate name "${name}" in ${listKey}`,
          { path: this.path, entry: name },
        );
      }
      entries.set(name, decodeItem(fields.get(itemKey), `${at}.${itemKey}`));
    });
    return entries;
  }

  private extensions(value: unknown, at: string): Extensions | undefined {
    if (value === null || value === undefined) return undefined;
    const extensions: Extensions = new Map();
    this.list(value, at).forEach((item, index) => {
      const entryAt = `${at}[${index}]`;
      const fields = item === null || item === undefined ? new Map() : this.map(item, entryAt);
      const name = this.optionalString(fields, 'name', `${entryAt}.name`) ?? '';
      // client-go only sees a duplicate when the earlier extension is not null; a null one
      // is replaced by the later entry (checked against kubectl).
      if (extensions.has(name) && extensions.get(name) !== null) {
        throw new KubeconfigError(
          'ERR_CONFIG_DUPLICATE_NAME',
          `error loading config file "${this.path}": duplicate name "${name}" in ${at}`,
          { path: this.path, entry: name },
        );
      }
      extensions.set(name, toPlainJson(fields.get('extension')));
    });
    return extensions;
  }

  private optionalStringListMap(value: unknown, at: string): Map<string, string[]> | undefined {
    if (value === null || value === undefined) return undefined;
    const result = new Map<string, string[]>();
    for (const [key, entry] of this.map(value, at)) {
      const name = String(key);
      result.set(name, this.stringList(entry, `${at}.${name}`) ?? []);
    }
    return result;
  }

  /** optionalString treats `""` as unset: Go cannot tell them apart either. */
  private optionalString(fields: Fields, key: string, at: string): string | undefined {
    return this.string(fields.get(key), at) || undefined;
  }

  private string(value: unknown, at: string): string | undefined {
    if (value === null || value === undefined) return undefined;
    if (value instanceof Uint8Array) return binaryText(value);
    if (typeof value !== 'string') this.typeError(at, 'a string', value);
    return value;
  }

  private optionalBoolean(fields: Fields, key: string, at: string): boolean | undefined {
    const value = fields.get(key);
    if (value === null || value === undefined) return undefined;
    if (typeof value !== 'boolean') this.typeError(at, 'a boolean', value);
    return value;
  }

  private optionalStringList(fields: Fields, key: string, at: string): string[] | undefined {
    return this.stringList(fields.get(key), at);
  }

  private stringList(value: unknown, at: string): string[] | undefined {
    if (value === null || value === undefined) return undefined;
    return this.list(value, at).map((item, index) => this.string(item, `${at}[${index}]`) ?? '');
  }

  private optionalBytes(fields: Fields, key: string, at: string): Uint8Array | undefined {
    const text = this.optionalString(fields, key, at);
    if (text === undefined) return undefined;
    const bytes = decodeStandardBase64(text);
    if (bytes?.length === 0) return undefined;
    if (!bytes) {
      throw new KubeconfigError(
        'ERR_CONFIG_PARSE',
        `error loading config file "${this.path}": ${at} is not valid base64`,
        { path: this.path },
      );
    }
    return bytes;
  }

  private map(value: unknown, at: string): Fields {
    if (!(value instanceof Map)) this.typeError(at, 'a mapping', value);
    return value;
  }

  private list(value: unknown, at: string): unknown[] {
    if (!Array.isArray(value)) this.typeError(at, 'a list', value);
    return value;
  }

  private typeError(at: string, expected: string, value: unknown): never {
    throw new KubeconfigError(
      'ERR_CONFIG_PARSE',
      `error loading config file "${this.path}": ${at} must be ${expected}, not ${kindOf(value)}`,
      { path: this.path },
    );
  }
}

function assign<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined) {
  if (value !== undefined) target[key] = value;
}

function kindOf(value: unknown): string {
  if (value instanceof Map) return 'a mapping';
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

// With the length a multiple of 4, this is padded standard base64; a plain character run is
// about three times faster to match than groups of four, and CA data is long.
const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * decodeStandardBase64 decodes RFC 4648 standard base64 with padding, as Go's
 * `base64.StdEncoding` does (it skips CR and LF). Returns undefined for anything else.
 */
export function decodeStandardBase64(text: string): Uint8Array | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !BASE64_PATTERN.test(compact)) return undefined;
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

/**
 * toPlainJson converts a parsed YAML value with `Map`s into plain JSON values. Keys are
 * defined as own properties, so `__proto__` or `constructor` keys stay data and never touch
 * a prototype.
 */
export function toPlainJson(value: unknown): unknown {
  if (value instanceof Map) {
    const object: Record<string, unknown> = {};
    for (const [key, entry] of value) {
      Object.defineProperty(object, String(key), {
        value: toPlainJson(entry),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return object;
  }
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (value instanceof Uint8Array) return binaryText(value);
  if (value === undefined) return null;
  return value;
}

/** binaryText turns a `!!binary` scalar into the string yaml.v2 makes of it (invalid UTF-8 → U+FFFD). */
function binaryText(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
