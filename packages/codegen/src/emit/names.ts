/**
 * Naming rules of the generated code, in one place so the builtin and CRD generators agree.
 */

/** groupId is the first label of an API group (`rbac.authorization.k8s.io` → `rbac`; core → `core`), as client-go names groups. */
export function groupId(group: string): string {
  return group === '' ? 'core' : (group.split('.')[0] ?? group).replace(/-/g, '');
}

/** upperFirst capitalises the first character. */
export function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** lowerFirst lowercases the first character. */
export function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** groupVersionProperty is the clientset property of a group version: `coreV1`, `appsV1`, `rbacV1`. */
export function groupVersionProperty(group: string, version: string): string {
  return `${lowerCamel(groupId(group))}${upperFirst(version)}`;
}

/** groupVersionTypeName is the group client's interface name: `CoreV1Client`, `AppsV1Client`. */
export function groupVersionTypeName(group: string, version: string): string {
  return `${upperFirst(groupVersionProperty(group, version))}Client`;
}

/** lowerCamel turns `foo-bar_baz` into `fooBarBaz`. */
export function lowerCamel(text: string): string {
  return lowerFirst(text.replace(/[-_.]+([a-zA-Z0-9])/g, (_, next: string) => next.toUpperCase()));
}

/** pascalCase turns `foo-bar_baz` or `fooBar` into `FooBarBaz`. */
export function pascalCase(text: string): string {
  return upperFirst(lowerCamel(text.replace(/[^a-zA-Z0-9_.-]+/g, '-')));
}

/**
 * resourceMethodName is the group client's method for a resource: the kind's camel case with the
 * plural's ending, e.g. `configmaps`/`ConfigMap` → `configMaps`, `networkpolicies`/`NetworkPolicy`
 * → `networkPolicies`, `endpoints`/`Endpoints` → `endpoints` (client-go's names, lower camel).
 */
export function resourceMethodName(plural: string, kind: string): string {
  const common = commonPrefixLength(kind.toLowerCase(), plural);
  if (common === 0) return lowerCamel(plural);
  return lowerLeadingAcronym(kind.slice(0, common)) + plural.slice(common);
}

/** commonPrefixLength is the length of the longest common prefix of `a` and `b`. */
function commonPrefixLength(a: string, b: string): number {
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return common;
}

/** KIND_WORD matches one word of a kind: an acronym (`CSI`, `IP`), a capitalised word, or a lowercase run. */
const KIND_WORD = /[A-Z]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+/g;

/**
 * pluralKindName is the plural of a kind in the kind's own casing, for the names of generated
 * clients: `TeamNamespace`/`teamnamespaces` → `TeamNamespaces`, `NetworkPolicy`/`networkpolicies`
 * → `NetworkPolicies`, `APIService`/`apiservices` → `APIServices`, `Endpoints`/`endpoints` →
 * `Endpoints`. The rule: the longest common prefix of the kind and the plural (ignoring case)
 * keeps the kind's casing, so a plural that starts with the kind appends its ending, and an
 * irregular one keeps the kind's casing up to where they differ (`Policy`/`policies`: `Polic` +
 * `ies`); in the rest of the plural, each later word of the kind found there (in order, ignoring
 * case) takes the kind's casing (`GooseFeather`/`geesefeathers` → `GeeseFeathers`); the result is
 * made an identifier in PascalCase (`foo-bars` → `FooBars`, and a plural sharing nothing with
 * its kind is only capitalised).
 */
export function pluralKindName(kind: string, plural: string): string {
  const common = commonPrefixLength(kind.toLowerCase(), plural.toLowerCase());
  let rest = plural.slice(common);
  let position = 0;
  for (const word of kind.matchAll(KIND_WORD)) {
    if (word.index < common) continue;
    const found = rest.toLowerCase().indexOf(word[0].toLowerCase(), position);
    if (found < 0) continue;
    rest = rest.slice(0, found) + word[0] + rest.slice(found + word[0].length);
    position = found + word[0].length;
  }
  return pascalCase(kind.slice(0, common) + rest);
}

/** IRREGULAR_SINGULARS maps plurals the suffix rules of {@link singularTypeName} get wrong to their singulars. */
const IRREGULAR_SINGULARS: Readonly<Record<string, string>> = {
  caches: 'cache',
  children: 'child',
  cookies: 'cookie',
  cpus: 'cpu',
  gpus: 'gpu',
  indices: 'index',
  leaves: 'leaf',
  matrices: 'matrix',
  menus: 'menu',
  movies: 'movie',
  people: 'person',
  skus: 'sku',
  tpus: 'tpu',
  vcpus: 'vcpu',
  vertices: 'vertex',
};

/** SINGULAR_WORDS end like plurals but are not. */
const SINGULAR_WORDS = new Set([
  'alias',
  'atlas',
  'axis',
  'bias',
  'canvas',
  'chaos',
  'gas',
  'kubernetes',
  'kudos',
  'lens',
  'news',
  'redis',
  'series',
  'species',
]);

/** singularWord is the singular of one lowercase word, or the word itself when it is not a plural. */
function singularWord(word: string): string {
  const irregular = IRREGULAR_SINGULARS[word];
  if (irregular) return irregular;
  if (
    word.length <= 2 ||
    !word.endsWith('s') ||
    SINGULAR_WORDS.has(word) ||
    /(ss|us|sis)$/.test(word) || // address, status, basis
    !/[aeiouy]/.test(word.slice(0, -1)) // tls, dns, https: abbreviations
  ) {
    return word;
  }
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`; // entries, policies
  if (/(ss|x|ch|sh|zz|tus|ias)es$/.test(word)) return word.slice(0, -2); // addresses, boxes, patches, statuses
  if (word.endsWith('yses')) return `${word.slice(0, -2)}is`; // analyses
  return word.slice(0, -1); // ports, conditions, sizes, replicas
}

/**
 * singularTypeName puts the last word of a PascalCase name in the singular, for the element type
 * of an array: `TeamNamespaceStatusConditions` → `TeamNamespaceStatusCondition`, `…Entries` →
 * `…Entry`, `…Addresses` → `…Address`, `…Statuses` → `…Status`, `…PodIPs` → `…PodIP`. A name
 * whose last word is not an English plural (`…Status`, `…Ingress`, `…Tls`, `…Env`, `…Data`)
 * stays as it is. English suffix rules with a short list of exceptions, not a dictionary: a
 * clash of names this causes is the generator's to resolve.
 */
export function singularTypeName(name: string): string {
  if (/[A-Z]{2}s$/.test(name)) return name.slice(0, -1); // an acronym's plural: IPs, CIDRs, URLs
  const last = /[A-Z]?[a-z0-9]*$/.exec(name)?.[0] ?? '';
  if (last === '') return name;
  const singular = singularWord(last.toLowerCase());
  if (singular === last.toLowerCase()) return name;
  const cased = /^[A-Z]/.test(last) ? upperFirst(singular) : singular;
  return name.slice(0, name.length - last.length) + cased;
}

/** lowerLeadingAcronym lowercases a leading capital or acronym: `CSIDriver` → `csiDriver`, `APIService` → `apiService`. */
export function lowerLeadingAcronym(text: string): string {
  const run = /^[A-Z]+/.exec(text)?.[0] ?? '';
  if (run.length <= 1 || run.length === text.length)
    return text.slice(0, run.length).toLowerCase() + text.slice(run.length);
  const keep = /[a-z]/.test(text.charAt(run.length)) ? run.length - 1 : run.length;
  return text.slice(0, keep).toLowerCase() + text.slice(keep);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** propertyKey writes an object key: bare when it is an identifier, else quoted. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : tsString(name);
}

/** kebabCase turns `FooBar` into `foo-bar`. */
export function kebabCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

/** tsString writes a single-quoted TypeScript string literal. */
export function tsString(value: string): string {
  return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

/** tsStrings writes a readonly array literal of strings: `['a', 'b']`. */
export function tsStrings(values: readonly string[]): string {
  return `[${values.map(tsString).join(', ')}]`;
}
