import {
  ABORT_SIGNAL,
  anyOf,
  BOOLEAN,
  isPlainObject,
  NON_EMPTY_STRING,
  NON_NEGATIVE_INTEGER,
  NON_NEGATIVE_NUMBER,
  oneOf,
  PLAIN_OBJECT,
  STRING,
  type ArgumentRule,
} from '../validation/argument-rules.js';
import type { OptionRules } from '../validation/check-arguments.js';

const POSITIVE_INTEGER: ArgumentRule = {
  expected: 'an integer of 1 or more',
  test: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
};

const LABEL_SELECTOR: ArgumentRule = {
  expected: 'a string or an object of string values',
  test: (value) =>
    typeof value === 'string' ||
    (isPlainObject(value) && Object.values(value).every((entry) => typeof entry === 'string')),
};

const PRECONDITIONS: ArgumentRule = {
  expected: 'an object with uid and resourceVersion strings',
  test: (value) =>
    isPlainObject(value) &&
    Object.entries(value).every(
      ([key, entry]) =>
        (key === 'uid' || key === 'resourceVersion') &&
        (entry === undefined || typeof entry === 'string'),
    ),
};

/**
 * REQUEST_OPTION_RULES are the runtime rules of every option the resource clients take, by name
 * (an option means the same in every call that takes it): what plain JavaScript must pass.
 */
export const REQUEST_OPTION_RULES: Readonly<Record<string, ArgumentRule>> = {
  // RequestOptions
  signal: ABORT_SIGNAL,
  timeoutMs: NON_NEGATIVE_NUMBER,
  maxRetries: NON_NEGATIVE_INTEGER,
  // GetOptions and ListSelection
  resourceVersion: STRING,
  labelSelector: LABEL_SELECTOR,
  fieldSelector: STRING,
  resourceVersionMatch: oneOf('NotOlderThan', 'Exact'),
  timeoutSeconds: NON_NEGATIVE_INTEGER,
  limit: NON_NEGATIVE_INTEGER,
  continue: STRING,
  pageSize: NON_NEGATIVE_INTEGER,
  allowWatchBookmarks: BOOLEAN,
  sendInitialEvents: BOOLEAN,
  idleTimeoutMs: NON_NEGATIVE_NUMBER,
  omitManagedFields: BOOLEAN,
  // Writes: `dryRun: false` would still be sent as dryRun=All, so only the values that mean it pass.
  dryRun: oneOf('All', true),
  fieldManager: NON_EMPTY_STRING,
  fieldValidation: oneOf('Ignore', 'Warn', 'Strict'),
  force: BOOLEAN,
  // DeleteOptions
  gracePeriodSeconds: NON_NEGATIVE_INTEGER,
  preconditions: PRECONDITIONS,
  propagationPolicy: oneOf('Orphan', 'Background', 'Foreground'),
  orphanDependents: BOOLEAN,
  ignoreStoreReadErrorWithClusterBreakingPotential: BOOLEAN,
};

/** OPTIONS are the rules of calls with optional options. */
export const OPTIONS: OptionRules = { rules: REQUEST_OPTION_RULES };

/** APPLY_OPTIONS are the rules of server-side apply, which needs a field manager. */
export const APPLY_OPTIONS: OptionRules = {
  rules: REQUEST_OPTION_RULES,
  required: ['fieldManager'],
};

/**
 * STREAM_OPTIONS are the rules of the WebSocket calls' options (exec, attach, copy,
 * port-forward): the request options and the keep-alive.
 */
export const STREAM_OPTIONS: OptionRules = {
  rules: {
    ...REQUEST_OPTION_RULES,
    pingIntervalMs: NON_NEGATIVE_NUMBER,
    pongTimeoutMs: NON_NEGATIVE_NUMBER,
    maxListedEntries: NON_NEGATIVE_INTEGER,
  },
};

/**
 * LOG_OPTIONS are the rules of `logs()`: the request options and `corev1.PodLogOptions`, so
 * that plain JavaScript's `follow: 'false'` is refused rather than sent as `follow=true`.
 */
export const LOG_OPTIONS: OptionRules = {
  rules: {
    ...REQUEST_OPTION_RULES,
    container: STRING,
    follow: BOOLEAN,
    previous: BOOLEAN,
    sinceSeconds: NON_NEGATIVE_INTEGER,
    sinceTime: STRING,
    timestamps: BOOLEAN,
    tailLines: NON_NEGATIVE_INTEGER,
    limitBytes: NON_NEGATIVE_INTEGER,
    insecureSkipTLSVerifyBackend: BOOLEAN,
    stream: oneOf('All', 'Stdout', 'Stderr'),
  },
};

/** LOG_LINES_OPTIONS are the rules of `logLines()`: those of `logs()` and its own. */
export const LOG_LINES_OPTIONS: OptionRules = {
  rules: {
    ...LOG_OPTIONS.rules,
    allContainers: BOOLEAN,
    reconnect: anyOf(BOOLEAN, PLAIN_OBJECT),
    maxLineBytes: POSITIVE_INTEGER,
  },
};
