import { ConfigArgumentError } from './errors.js';

/**
 * The run-time checks of the public functions' arguments, for callers without type checking.
 * Each throws a {@link ConfigArgumentError} naming the function (`fn`) and the argument (`at`).
 * They check what the functions read before they could fail obscurely (types, Maps, functions),
 * not the values, which the functions validate as they always did.
 */

/** FieldCheck checks one value; `at` names it, `fn` the public function. */
export type FieldCheck = (fn: string, at: string, value: unknown) => void;

/** fail throws the error for `value` at `at`, which should have been `expected`. */
export function fail(fn: string, at: string, expected: string, value: unknown): never {
  throw new ConfigArgumentError(fn, at, expected, value);
}

/** optional lets `undefined` through and checks anything else with `check`. */
export function optional(check: FieldCheck): FieldCheck {
  return (fn, at, value) => {
    if (value !== undefined) check(fn, at, value);
  };
}

export const checkString: FieldCheck = (fn, at, value) => {
  if (typeof value !== 'string') fail(fn, at, 'a string', value);
};

const checkBoolean: FieldCheck = (fn, at, value) => {
  if (typeof value !== 'boolean') fail(fn, at, 'a boolean', value);
};

export const checkFunction: FieldCheck = (fn, at, value) => {
  if (typeof value !== 'function') fail(fn, at, 'a function', value);
};

const checkStringList: FieldCheck = (fn, at, value) => {
  if (!Array.isArray(value)) fail(fn, at, 'an array of strings', value);
  value.forEach((item, index) => checkString(fn, `${at}[${index}]`, item));
};

/** checkObject accepts a non-null, non-array object. */
export function checkObject(fn: string, at: string, value: unknown, expected = 'an object'): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(fn, at, expected, value);
  }
}

/**
 * checkFields checks an options object: `undefined` passes when `optionalObject`, each field
 * listed in `fields` is checked, other fields are left alone.
 */
export function checkFields(
  fn: string,
  at: string,
  value: unknown,
  fields: Readonly<Record<string, FieldCheck>>,
  optionalObject = true,
): void {
  if (value === undefined && optionalObject) return;
  checkObject(fn, at, value, optionalObject ? 'an options object or undefined' : 'an object');
  const object = value as Record<string, unknown>;
  for (const [key, check] of Object.entries(fields)) check(fn, `${at}.${key}`, object[key]);
}

/** checkEnvironment accepts an environment such as `process.env`: string or undefined values. */
const checkEnvironment: FieldCheck = (fn, at, value) => {
  checkObject(fn, at, value, 'an object of environment variables, like process.env');
  for (const [name, entry] of Object.entries(value as object)) {
    if (entry !== undefined && typeof entry !== 'string')
      fail(fn, `${at}.${name}`, 'a string', entry);
  }
};

/** checkMap accepts a Map whose keys are strings and whose values pass `checkValue`. */
function checkMap(
  fn: string,
  at: string,
  value: unknown,
  expected: string,
  checkValue?: FieldCheck,
) {
  if (!(value instanceof Map)) fail(fn, at, expected, value);
  for (const [key, entry] of value as Map<unknown, unknown>) {
    if (typeof key !== 'string') fail(fn, `a key of ${at}`, 'a string', key);
    checkValue?.(fn, `${at}.get(${JSON.stringify(key)})`, entry);
  }
}

const checkEntry: FieldCheck = (fn, at, value) => checkObject(fn, at, value);

const KUBECONFIG =
  'a Kubeconfig (as parseKubeconfig or loadKubeconfig return it, with Maps of clusters, users and contexts)';

/** checkKubeconfig checks the shape of a Kubeconfig: its Maps, their entries, current-context. */
export const checkKubeconfig: FieldCheck = (fn, at, value) => {
  checkObject(fn, at, value, KUBECONFIG);
  const config = value as Record<string, unknown>;
  for (const list of ['clusters', 'users', 'contexts']) {
    checkMap(
      fn,
      `${at}.${list}`,
      config[list],
      `a Map of ${list} by name (as parseKubeconfig and loadKubeconfig give it)`,
      checkEntry,
    );
  }
  checkString(fn, `${at}.currentContext`, config.currentContext);
  checkObject(fn, `${at}.preferences`, config.preferences);
  checkMap(fn, `${at}.extensions`, config.extensions, 'a Map of extensions by name');
};

/** checkOrigins checks EntryOrigins: a Map of file paths per list. */
export const checkOrigins: FieldCheck = (fn, at, value) => {
  checkObject(fn, at, value, 'the origins of a load result (loadKubeconfig(…).origins)');
  for (const list of ['clusters', 'users', 'contexts']) {
    const origins = (value as Record<string, unknown>)[list];
    checkMap(fn, `${at}.${list}`, origins, 'a Map of file paths by name', checkString);
  }
};

/** checkPrecedence checks a LoadingPrecedence. */
export const checkPrecedence: FieldCheck = (fn, at, value) => {
  checkFields(
    fn,
    at,
    value,
    {
      explicitPath: optional(checkString),
      files: checkStringList,
      fromEnv: checkBoolean,
      defaultFile: checkString,
    },
    false,
  );
};

const LOADED = 'the result of loadKubeconfig';

/** checkLoadedKubeconfig checks what loadKubeconfig returns. */
export const checkLoadedKubeconfig: FieldCheck = (fn, at, value) => {
  checkObject(fn, at, value, LOADED);
  const loaded = value as Record<string, unknown>;
  if (!('origins' in loaded)) fail(fn, at, `${LOADED} (a Kubeconfig alone has no origins)`, value);
  checkKubeconfig(fn, `${at}.config`, loaded.config);
  checkOrigins(fn, `${at}.origins`, loaded.origins);
  if (!Array.isArray(loaded.files)) fail(fn, `${at}.files`, 'an array of files', loaded.files);
  checkPrecedence(fn, `${at}.precedence`, loaded.precedence);
};

const checkLockWait: FieldCheck = (fn, at, value) => {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    fail(fn, at, 'a number of milliseconds, 0 or more (Infinity waits as long as it takes)', value);
  }
};

/** The fields of LoadingRulesOptions. */
export const LOADING_RULES_FIELDS: Readonly<Record<string, FieldCheck>> = {
  explicitPath: optional(checkString),
  env: optional(checkEnvironment),
  homeDir: optional(checkString),
  platform: optional(checkString),
};

/** The fields of LoadKubeconfigOptions. */
export const LOAD_FIELDS: Readonly<Record<string, FieldCheck>> = {
  ...LOADING_RULES_FIELDS,
  resolvePaths: optional(checkBoolean),
  allowMissingExplicitPath: optional(checkBoolean),
  onWarning: optional(checkFunction),
};

/** The fields of InClusterOptions. */
export const IN_CLUSTER_FIELDS: Readonly<Record<string, FieldCheck>> = {
  env: optional(checkEnvironment),
  tokenFile: optional(checkString),
  caFile: optional(checkString),
  namespaceFile: optional(checkString),
};

/** The fields of LockOptions (ModifyKubeconfigOptions). */
export const LOCK_FIELDS: Readonly<Record<string, FieldCheck>> = {
  lockWaitMs: optional(checkLockWait),
};

const OVERRIDE_STRINGS = [
  ...['context', 'cluster', 'user', 'namespace', 'server', 'tlsServerName'],
  ...['certificateAuthority', 'clientCertificate', 'clientKey', 'token', 'username'],
  ...['password', 'impersonate', 'impersonateUid', 'proxyUrl', 'requestTimeout'],
];

/** The fields of ConfigOverrides. */
export const OVERRIDE_FIELDS: Readonly<Record<string, FieldCheck>> = {
  ...Object.fromEntries(OVERRIDE_STRINGS.map((name) => [name, optional(checkString)])),
  insecureSkipTlsVerify: optional(checkBoolean),
  disableCompression: optional(checkBoolean),
  impersonateGroups: optional(checkStringList),
  impersonateUserExtra: optional((fn, at, value) =>
    checkMap(fn, at, value, 'a Map of string arrays by key', checkStringList),
  ),
};
