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
  const lowerKind = kind.toLowerCase();
  let common = 0;
  while (
    common < lowerKind.length &&
    common < plural.length &&
    lowerKind[common] === plural[common]
  ) {
    common++;
  }
  if (common === 0) return lowerCamel(plural);
  return lowerLeadingAcronym(kind.slice(0, common)) + plural.slice(common);
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
