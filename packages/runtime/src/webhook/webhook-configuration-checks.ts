import type { MatchCondition } from '@k/clientset/admissionregistration/v1';
import type { LabelSelector } from '@k/clientset/meta/v1';
import { RuntimeError } from '../errors.js';
import type { AdmissionRegistrationOptions, LabelSelectorLike } from './webhook-handler.js';

// The checks webhookConfigurations makes before it writes a field: what the API server would
// refuse (admissionregistration and apiextensions validation), refused here with a message that
// names the webhook, as a RuntimeError ERR_RUNTIME_CONFIGURATION.

const MAX_MATCH_CONDITIONS = 64;

/** oneOf is `value` if it is one of `allowed`, `fallback` if it is undefined; else it throws. */
export function oneOf<T extends string>(
  value: T | undefined,
  allowed: readonly NoInfer<T>[],
  fallback: NoInfer<T>,
  what: string,
): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) {
    throw configurationError(
      `${what} must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** timeoutOf is a webhook's timeoutSeconds: 10 by default, else a whole number from 1 to 30. */
export function timeoutOf(value: number | undefined, at: string): number {
  if (value === undefined) return 10;
  if (!Number.isInteger(value) || value < 1 || value > 30) {
    throw configurationError(
      `${at}: timeoutSeconds must be a whole number from 1 to 30, not ${value}`,
    );
  }
  return value;
}

/** matchConditionsOf copies matchConditions: at most 64, names qualified and unique, expressions not blank. */
export function matchConditionsOf(
  conditions: AdmissionRegistrationOptions['matchConditions'],
  at: string,
): MatchCondition[] {
  if (!isList(conditions)) throw configurationError(`${at}: matchConditions must be an array`);
  if (conditions.length > MAX_MATCH_CONDITIONS) {
    throw configurationError(
      `${at}: ${conditions.length} matchConditions, more than the ${MAX_MATCH_CONDITIONS} the API server allows`,
    );
  }
  const names = new Set<string>();
  return conditions.map(({ name, expression }) => {
    if (!isQualifiedName(name)) {
      throw configurationError(
        `${at}: matchCondition name ${JSON.stringify(name)} is not a qualified name (like a label key)`,
      );
    }
    if (names.has(name)) throw configurationError(`${at}: two matchConditions are named ${name}`);
    names.add(name);
    if (typeof expression !== 'string' || expression.trim() === '') {
      throw configurationError(`${at}: matchCondition ${name} has no expression`);
    }
    return { name, expression };
  });
}

/** selectorOf copies a label selector (own keys only), checking keys, values and operators. */
export function selectorOf(selector: LabelSelectorLike, what: string): LabelSelector {
  if (typeof selector !== 'object' || selector === null) {
    throw configurationError(`${what} must be a label selector object`);
  }
  const copy: LabelSelector = {};
  if (selector.matchLabels !== undefined) {
    copy.matchLabels = labelMapOf(selector.matchLabels, `${what}.matchLabels`);
  }
  if (selector.matchExpressions !== undefined) {
    if (!isList(selector.matchExpressions)) {
      throw configurationError(`${what}.matchExpressions must be an array`);
    }
    copy.matchExpressions = selector.matchExpressions.map(({ key, operator, values }) => {
      if (!isQualifiedName(key)) {
        throw configurationError(`${what}: ${JSON.stringify(key)} is not a valid label key`);
      }
      const needsValues = operator === 'In' || operator === 'NotIn';
      if (!needsValues && operator !== 'Exists' && operator !== 'DoesNotExist') {
        throw configurationError(
          `${what}: unknown operator ${JSON.stringify(operator)} for ${key}`,
        );
      }
      if (needsValues && (!isList(values) || values.length === 0)) {
        throw configurationError(`${what}: ${key} ${operator} needs at least one value`);
      }
      if (!needsValues && values !== undefined && values.length > 0) {
        throw configurationError(`${what}: ${key} ${operator} takes no values`);
      }
      for (const value of values ?? []) {
        if (!isLabelValue(value)) {
          throw configurationError(`${what}: ${JSON.stringify(value)} is not a valid label value`);
        }
      }
      return needsValues ? { key, operator, values: [...(values ?? [])] } : { key, operator };
    });
  }
  return copy;
}

/** labelMapOf copies a label map with own keys only, each a valid label key and value. */
export function labelMapOf(
  labels: Readonly<Record<string, string>>,
  what: string,
): Record<string, string> {
  if (typeof labels !== 'object' || labels === null || isList(labels)) {
    throw configurationError(`${what} must be an object of label keys to values`);
  }
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels)) {
    if (!isQualifiedName(key))
      throw configurationError(`${what}: ${JSON.stringify(key)} is not a valid label key`);
    if (!isLabelValue(value)) {
      throw configurationError(`${what}: the value of ${key} is not a valid label value`);
    }
    Object.defineProperty(copy, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** checkUrl returns the base URL without a trailing slash, or throws what the API server would. */
export function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw configurationError('target.url is not a URL');
  }
  if (parsed.protocol !== 'https:') throw configurationError('target.url must start with https://');
  if (parsed.hostname === '') throw configurationError('target.url has no host');
  if (parsed.username !== '' || parsed.password !== '') {
    throw configurationError('target.url must not hold a user or password');
  }
  if (url.includes('?') || url.includes('#')) {
    throw configurationError('target.url must not hold a query or a fragment');
  }
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

/** checkPathStart throws unless `path` starts with a slash. */
export function checkPathStart(path: string): void {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw configurationError(`webhook path ${JSON.stringify(path)} must start with /`);
  }
}

/** checkServicePath holds a Service path to the API server's rule: each segment a DNS subdomain. */
export function checkServicePath(path: string): void {
  checkPathStart(path);
  if (path === '/') return;
  const segments = (path.endsWith('/') ? path.slice(1, -1) : path.slice(1)).split('/');
  for (const segment of segments) {
    if (!isDns1123Subdomain(segment)) {
      throw configurationError(
        `webhook path ${JSON.stringify(path)}: the API server takes only lowercase letters, digits, '-' and '.' between slashes in a Service path`,
      );
    }
  }
}

/** caBundleOf is `caBundle` (PEM, or base64 of PEM) as canonical base64, checked to hold a certificate. */
export function caBundleOf(caBundle: string | undefined): string | undefined {
  if (caBundle === undefined) return undefined;
  if (typeof caBundle !== 'string' || caBundle.trim() === '') {
    throw configurationError('caBundle must be PEM text or base64 of it, not empty');
  }
  let pem: string;
  if (caBundle.includes('-----BEGIN')) {
    pem = caBundle;
  } else {
    try {
      pem = atob(caBundle);
    } catch {
      throw configurationError('caBundle is neither PEM text nor base64');
    }
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw configurationError('caBundle holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  }
  try {
    return btoa(pem);
  } catch {
    throw configurationError('caBundle PEM text must be ASCII');
  }
}

/** checkName throws unless `name` is a DNS subdomain of at least `minimumSegments` segments. */
export function checkName(name: string, what: string, minimumSegments = 1): void {
  if (!isDns1123Subdomain(name)) {
    throw configurationError(
      `${what} ${JSON.stringify(name)} is not a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253 characters)`,
    );
  }
  if (name.split('.').length < minimumSegments) {
    throw configurationError(
      `${what} ${JSON.stringify(name)} must be fully qualified, with at least ${minimumSegments} dot-separated segments (like validate.webapps.example.com)`,
    );
  }
}

const DNS_LABEL = '[a-z0-9](?:[-a-z0-9]*[a-z0-9])?';
const DNS_1123_SUBDOMAIN = new RegExp(`^${DNS_LABEL}(?:\\.${DNS_LABEL})*$`);
const DNS_1123_LABEL = new RegExp(`^${DNS_LABEL}$`);
const DNS_1035_LABEL = /^[a-z](?:[-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function isDns1123Subdomain(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 253 && DNS_1123_SUBDOMAIN.test(value);
}

/** isDns1123Label is a namespace name's rule. */
export function isDns1123Label(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 63 && DNS_1123_LABEL.test(value);
}

/** isDns1035Label is a Service name's rule. */
export function isDns1035Label(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 63 && DNS_1035_LABEL.test(value);
}

/** isQualifiedName is a label or annotation key's rule: `[prefix/]name`, the prefix a DNS subdomain. */
export function isQualifiedName(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const slash = value.indexOf('/');
  const name = slash === -1 ? value : value.slice(slash + 1);
  if (slash !== -1 && !isDns1123Subdomain(value.slice(0, slash))) return false;
  return name.length <= 63 && QUALIFIED_NAME_PART.test(name);
}

/** isLabelValue is a label value's rule: empty, or up to 63 name characters. */
export function isLabelValue(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    (value === '' || (value.length <= 63 && QUALIFIED_NAME_PART.test(value)))
  );
}

/** configurationError is the RuntimeError of a configuration the API server would refuse. */
export function configurationError(message: string): RuntimeError {
  return new RuntimeError('ERR_RUNTIME_CONFIGURATION', message);
}

/** isList is Array.isArray for values typed as readonly arrays (a plain-JavaScript caller may pass anything). */
export function isList(value: unknown): value is readonly unknown[] {
  return Array.isArray(value);
}
