import type { AuthProviderConfig, ExecConfig, ExecEnvVar } from '../model/kubeconfig.js';
import { DATA_OMITTED, REDACTED } from './redaction-markers.js';

/** The symbol util.inspect (and so console.log) looks for; Symbol.for needs no node:util import. */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** RedactedViewKinds says which printers an object gets. */
export interface RedactedViewKinds {
  /** json adds `toJSON`; left out where another package hashes `JSON.stringify` of the object. */
  json: boolean;
}

/**
 * defineRedactedView makes `util.inspect` (and `console.log`) print `view(object)` instead of
 * `object`, and with `json` also `JSON.stringify`, which then gives `view` with maps as plain
 * objects. Both are non-enumerable own properties: property access, `Object.keys`, spread (which
 * drops them) and `structuredClone` (which drops them too) see the real data. Returns `object`.
 * `console.dir`, `util.inspect(…, { customInspect: false })` and Node's report of an uncaught
 * exception skip custom inspection by design, and so print the data as it is.
 */
export function defineRedactedView<T extends object>(
  object: T,
  view: (object: T) => unknown,
  kinds: RedactedViewKinds = { json: true },
): T {
  if (Object.prototype.hasOwnProperty.call(object, INSPECT)) return object;
  const properties: PropertyDescriptorMap = {
    [INSPECT]: {
      value(this: T) {
        return view(this);
      },
      writable: true,
      configurable: true,
    },
  };
  if (kinds.json) {
    properties.toJSON = {
      value(this: T) {
        return toJsonValue(view(this));
      },
      writable: true,
      configurable: true,
    };
  }
  return Object.defineProperties(object, properties);
}

/** redactSecret shows `REDACTED` for a set secret and leaves an empty or missing one as it is. */
export function redactSecret<T extends string | undefined>(value: T): T | typeof REDACTED {
  return value ? REDACTED : value;
}

/** redactData shows `DATA+OMITTED` for non-empty bytes, as `kubectl config view` does. */
export function redactData(value: Uint8Array | undefined): Uint8Array | string | undefined {
  return value?.length ? DATA_OMITTED : value;
}

/**
 * redactUrl hides the userinfo of a URL (`http://user:REDACTED@host`, or `REDACTED@host` when
 * there is a user only, which may be a token) and keeps the rest of the text as it is.
 */
export function redactUrl<T extends string | undefined>(url: T): T | string {
  if (!url) return url;
  return url.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i,
    (_, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return `${scheme}${colon === -1 ? REDACTED : `${userinfo.slice(0, colon)}:${REDACTED}`}@`;
    },
  );
}

/** Keys of an auth-provider config that hold no secret (client-go's OIDC and GCP names). */
const VISIBLE_PROVIDER_KEYS = new Set([
  'client-id',
  'idp-issuer-url',
  'idp-certificate-authority',
  'extra-scopes',
  'scopes',
  'cmd-path',
  'expiry-key',
  'token-key',
  'expiry',
]);

/**
 * redactProviderConfig hides every auth-provider value but the known harmless ones: OIDC's
 * `client-secret`, `id-token`, `refresh-token` and any key a provider may add.
 */
export function redactProviderConfig(config: Map<string, string>): Map<string, string> {
  return new Map(
    [...config].map(([key, value]): [string, string] => [
      key,
      VISIBLE_PROVIDER_KEYS.has(key)
        ? value
        : key.endsWith('-data')
          ? DATA_OMITTED
          : (redactSecret(value) ?? ''),
    ]),
  );
}

/** redactAuthProvider is an auth-provider stanza with its config values hidden. */
export function redactAuthProvider(provider: AuthProviderConfig): unknown {
  return { ...provider, config: redactProviderConfig(provider.config) };
}

/** redactExec is an exec stanza with every `env` value hidden (names stay). */
export function redactExec(exec: ExecConfig): unknown {
  return exec.env ? { ...exec, env: exec.env.map(redactEnvVar) } : { ...exec };
}

/** redactEnvVar is one exec `env` entry with its value hidden. */
function redactEnvVar(variable: ExecEnvVar): unknown {
  return { ...variable, value: redactSecret(variable.value) };
}

/**
 * defineExecViews gives an exec stanza, its `env` list and each entry an inspect view only:
 * @k/transport keys its credential caches by `JSON.stringify` of these, which must see the
 * real values (two configs differing only in an env value must not share credentials).
 */
export function defineExecViews(exec: ExecConfig): ExecConfig {
  for (const variable of exec.env ?? [])
    defineRedactedView(variable, redactEnvVar, { json: false });
  if (exec.env) defineRedactedView(exec.env, (env) => env.map(redactEnvVar), { json: false });
  return defineRedactedView(exec, redactExec, { json: false });
}

/** defineProviderViews gives an auth-provider stanza both views and its config map an inspect view. */
export function defineProviderViews<T extends { config: Map<string, string> }>(provider: T): T {
  defineRedactedView(provider.config, redactProviderConfig, { json: false });
  return defineRedactedView(provider, (value) => ({
    ...value,
    config: redactProviderConfig(value.config),
  }));
}

/** defineDataView makes key bytes print as `DATA+OMITTED` when inspected on their own. */
export function defineDataView(bytes: Uint8Array | undefined): void {
  if (bytes?.length) defineRedactedView(bytes, () => DATA_OMITTED);
}

/**
 * toJsonValue turns a view into what JSON.stringify prints: maps become objects (keys defined as
 * own properties, so `__proto__` stays a key), bytes `DATA+OMITTED`.
 */
function toJsonValue(value: unknown): unknown {
  if (value instanceof Map) {
    const object: Record<string, unknown> = {};
    for (const [key, entry] of value as Map<unknown, unknown>) {
      Object.defineProperty(object, String(key), {
        value: toJsonValue(entry),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return object;
  }
  if (value instanceof Uint8Array) return value.length ? DATA_OMITTED : '';
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === 'object' && value !== null) {
    const object: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      Object.defineProperty(object, key, {
        value: toJsonValue(entry),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return object;
  }
  return value;
}
