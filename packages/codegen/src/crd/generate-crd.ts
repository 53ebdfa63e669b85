import { parseAllDocuments } from 'yaml';
import type { OpenApiSchema } from '../emit/openapi-schema.js';
import { docComment } from '../emit/doc-comment.js';
import { ModuleReferences } from '../emit/module-references.js';
import {
  kebabCase,
  pluralKindName,
  resourceMethodName,
  tsString,
  tsStrings,
} from '../emit/names.js';
import {
  nestedTypeName,
  propertyLines,
  SchemaDepthError,
  type TypeContext,
} from '../emit/type-emitter.js';
import type { GeneratedFiles } from '../generated-files.js';
import { compareStrings } from '../emit/stable-json.js';

/** CustomResourceDefinition is the part of an `apiextensions.k8s.io/v1` CRD the generator reads. */
export interface CustomResourceDefinition {
  apiVersion: string;
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: {
      plural: string;
      singular?: string | undefined;
      kind: string;
      listKind?: string | undefined;
      shortNames?: string[] | undefined;
      categories?: string[] | undefined;
    };
    versions: {
      name: string;
      served: boolean;
      storage?: boolean | undefined;
      deprecated?: boolean | undefined;
      schema?: { openAPIV3Schema?: OpenApiSchema | undefined } | undefined;
      subresources?: { status?: object | undefined; scale?: object | undefined } | undefined;
    }[];
  };
}

/** CrdGeneratorOptions configure {@link generateCrdClients}. */
export interface CrdGeneratorOptions {
  /** outDirectory is where files go, relative to the repository root or absolute. */
  outDirectory: string;
  /** runtimeModule is the module the generated code imports the runtime from (default `@k/clientset`). */
  runtimeModule?: string | undefined;
  /** source names the input in the header (e.g. the YAML file). */
  source: string;
}

/** RUNTIME_TYPE_IMPORTS are the types every generated module imports from the runtime module. */
const RUNTIME_TYPE_IMPORTS = ['ListMeta', 'ResourceClientFor', 'ResourceDescriptor', 'RestClient'];

/** RUNTIME_NAMES are the names a generated module may import from the runtime module. */
const RUNTIME_NAMES = ['IntOrString', 'ObjectMeta', 'ResourceClient', ...RUNTIME_TYPE_IMPORTS];

const STANDARD_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

/**
 * parseCrds reads the CustomResourceDefinitions of multi-document YAML (other kinds are skipped;
 * `kind: List` items are read). A document that fails to parse is an error naming it.
 */
export function parseCrds(text: string, source: string): CustomResourceDefinition[] {
  const crds: CustomResourceDefinition[] = [];
  parseAllDocuments(text, { version: '1.1' }).forEach((document, index) => {
    if ('errors' in document && document.errors.length > 0) {
      throw new Error(
        `${source}: document ${index + 1} is not valid yaml: ${document.errors[0]?.message ?? ''}`,
      );
    }
    const value = document.toJS() as { kind?: string; items?: unknown[] } | null;
    const items = value?.kind === 'List' && Array.isArray(value.items) ? value.items : [value];
    for (const item of items as ({ kind?: string } | null)[]) {
      if (item?.kind !== 'CustomResourceDefinition') continue;
      const crd = item as CustomResourceDefinition;
      if (
        !crd.spec?.group ||
        !crd.spec.names?.kind ||
        !crd.spec.names.plural ||
        !Array.isArray(crd.spec.versions)
      ) {
        throw new Error(
          `${source}: document ${index + 1} is a CustomResourceDefinition without group, names or versions`,
        );
      }
      crds.push(crd);
    }
  });
  return crds;
}

/** crdFileName is the file of one served version: `<kebab-kind>-<version>.ts`, e.g. `widget-v1.ts`. */
export function crdFileName(crd: CustomResourceDefinition, version: string): string {
  return `${kebabCase(crd.spec.names.kind)}-${version}.ts`;
}

/** NestedTypeRequest is one nested schema the emitter asked a name for: its parent's request (none: the kind) and its path below it. */
interface NestedTypeRequest {
  parent: number | undefined;
  path: readonly string[];
}

/**
 * NestedTypes names the nested object schemas of one module and queues them for emission. The
 * module is emitted twice: the first time only records the requests (in the emitter's order,
 * breadth first, which does not depend on the names), {@link resolveNestedNames} names them all,
 * and the second time hands those names out in the same order.
 */
class NestedTypes {
  readonly queue: { name: string; schema: OpenApiSchema; path: string[] }[] = [];
  readonly requests: NestedTypeRequest[] = [];
  readonly #names: readonly string[] | undefined;
  /** request index of each name handed out, to find the parent of a later request */
  readonly #requestOf = new Map<string, number>();

  constructor(names?: readonly string[]) {
    this.#names = names;
  }

  name(path: readonly string[], schema: OpenApiSchema): string {
    const index = this.requests.length;
    this.requests.push({ parent: this.#requestOf.get(path[0] ?? ''), path: path.slice(1) });
    // The first pass's names only need to be unique and unlike a kind (which has no NUL).
    const name = this.#names ? this.#names[index] : `\0${index}`;
    if (name === undefined) throw new Error(`k-gen: nested type ${index} was not named`);
    this.#requestOf.set(name, index);
    this.queue.push({ name, schema, path: [name] });
    return name;
  }
}

/**
 * resolveNestedNames names the requests of {@link NestedTypes}: each after its path below its
 * parent's name (`TeamNamespaceStatus` + `conditions` item → `TeamNamespaceStatusCondition`). A
 * name already taken (the kind, its list, its client, an imported name, or a nested type named
 * before) is resolved deterministically: nearer the root first, and at the same depth a name
 * spelled as its path is (`…Entry` for an `entry` object) before an array's element named in the
 * singular, which then keeps its path's spelling with `Item` (`…EntriesItem`); a name still taken
 * gets the first free number (`…Entry2`).
 */
function resolveNestedNames(
  kind: string,
  requests: readonly NestedTypeRequest[],
  taken: Iterable<string>,
): string[] {
  const depth: number[] = [];
  const singular: boolean[] = [];
  requests.forEach((request, index) => {
    depth[index] = request.parent === undefined ? 0 : depth[request.parent]! + 1;
    singular[index] =
      nestedTypeName(['', ...request.path]) !==
      nestedTypeName(['', ...request.path], { singularItems: false });
  });
  const order = requests
    .map((_, index) => index)
    .sort((a, b) => depth[a]! - depth[b]! || Number(singular[a]) - Number(singular[b]) || a - b);
  const used = new Set(taken);
  const names: string[] = [];
  for (const index of order) {
    const request = requests[index]!;
    const path = [request.parent === undefined ? kind : names[request.parent]!, ...request.path];
    let base = nestedTypeName(path);
    if (used.has(base) && singular[index])
      base = `${nestedTypeName(path, { singularItems: false })}Item`;
    let name = base;
    for (let counter = 2; used.has(name); counter++) name = `${base}${counter}`;
    used.add(name);
    names[index] = name;
  }
  return names;
}

function versionModule(
  crd: CustomResourceDefinition,
  version: CustomResourceDefinition['spec']['versions'][number],
  runtimeModule: string,
  source: string,
): string {
  const { group, names, scope } = crd.spec;
  const kind = names.kind;
  const listKind = names.listKind ?? `${kind}List`;
  const apiVersion = `${group}/${version.name}`;
  const schema: OpenApiSchema = version.schema?.openAPIV3Schema ?? {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  };
  const pluralName = pluralKindName(kind, names.plural);
  const clientName = `${pluralName}Client`;
  // Named as the built-in descriptors are (`teamNamespacesResource`, `vpcsResource`).
  const descriptorName = `${resourceMethodName(names.plural, kind)}Resource`;
  const wellKnown = {
    IntOrString: { module: runtimeModule, name: 'IntOrString' },
    ObjectMeta: { module: runtimeModule, name: 'ObjectMeta' },
  };
  const references = new ModuleReferences({
    module: '',
    localNames: new Set([kind, listKind]),
    locate: (ref) => {
      throw new Error(
        `${source}: ${kind} ${version.name}: $ref ${ref} is not allowed in a CRD schema`,
      );
    },
    wellKnown,
  });
  const root: OpenApiSchema = {
    ...schema,
    'x-kubernetes-preserve-unknown-fields': schema['x-kubernetes-preserve-unknown-fields'],
    properties: {
      apiVersion: {
        type: 'string',
        description: 'APIVersion defines the versioned schema of this representation of an object.',
      },
      kind: {
        type: 'string',
        description:
          'Kind is a string value representing the REST resource this object represents.',
      },
      ...schema.properties,
      metadata: { description: "Standard object's metadata." },
    },
  };
  /** interfaces emits the root interface and every nested one, named by `nested`. */
  const interfaces = (nested: NestedTypes): string => {
    const typeReferences = {
      reference: (ref: string) => references.reference(ref),
      named: (name: 'IntOrString' | 'ObjectMeta') => references.named(name),
      nested: (path: readonly string[], nestedSchema: OpenApiSchema) =>
        nested.name(path, nestedSchema),
    };
    const rootContext: TypeContext = {
      references: typeReferences,
      path: [kind],
      literals: {
        apiVersion: tsString(apiVersion),
        kind: tsString(kind),
        metadata: references.named('ObjectMeta'),
      },
    };
    const rootLines = propertyLines(root, rootContext, '  ');
    let text = `\n${docComment(schema.description ?? `${kind} is a ${group} custom resource (${version.name}).`)}`;
    text += `export interface ${kind} {\n${rootLines.join('')}}\n`;
    for (let index = 0; index < nested.queue.length; index++) {
      const entry = nested.queue[index]!;
      const lines = propertyLines(
        entry.schema,
        { references: typeReferences, path: entry.path },
        '  ',
      );
      text += `\n${docComment(entry.schema.description)}export interface ${entry.name} {\n${lines.join('')}}\n`;
    }
    return text;
  };
  const planned = new NestedTypes();
  interfaces(planned);
  const taken = [kind, listKind, clientName, ...RUNTIME_NAMES];
  let body = interfaces(new NestedTypes(resolveNestedNames(kind, planned.requests, taken)));
  body += `\n/** ${listKind} is a list of ${kind} objects. */\n`;
  body += `export interface ${listKind} {\n  apiVersion?: ${tsString(apiVersion)} | undefined;\n  kind?: ${tsString(listKind)} | undefined;\n  metadata?: ListMeta | undefined;\n  items: ${kind}[];\n}\n`;

  const subresources: string[] = [];
  if (version.subresources?.scale) subresources.push(`scale: ['get', 'patch', 'update']`);
  if (version.subresources?.status) subresources.push(`status: ['get', 'patch', 'update']`);
  const fields = [
    `group: ${tsString(group)}`,
    `version: ${tsString(version.name)}`,
    `kind: ${tsString(kind)}`,
    `plural: ${tsString(names.plural)}`,
    `singular: ${tsString(names.singular ?? kind.toLowerCase())}`,
    `namespaced: ${scope === 'Namespaced'}`,
    `verbs: ${tsStrings(STANDARD_VERBS)}`,
    ...(subresources.length > 0 ? [`subresources: { ${subresources.join(', ')} }`] : []),
    ...(names.shortNames?.length ? [`shortNames: ${tsStrings(names.shortNames)}`] : []),
    ...(names.categories?.length ? [`categories: ${tsStrings(names.categories)}`] : []),
  ];
  body += `\n/** ${descriptorName} describes \`${names.plural}.${group}\` ${version.name} (${kind}, ${scope === 'Namespaced' ? 'namespaced' : 'cluster-scoped'}). */\n`;
  body += `export const ${descriptorName} = {\n${fields.map((field) => `  ${field},\n`).join('')}} as const satisfies ResourceDescriptor;\n`;
  body += `\n/** ${clientName} is the typed client of ${kind} objects (${apiVersion}). */\n`;
  body += `export type ${clientName} = ResourceClientFor<typeof ${descriptorName}, ${kind}, ${listKind}>;\n`;
  const namespaced = scope === 'Namespaced';
  body += `\n/**\n * create${clientName} returns the typed client of ${kind} objects${namespaced ? " in `namespace` (none: `rest.defaultNamespace`, the context's; `''`: every namespace, for list and watch)" : ''}\n * that sends through \`rest\` (e.g. \`clientset.rest\`).\n */\n`;
  body += namespaced
    ? `export function create${clientName}(rest: RestClient, namespace?: string): ${clientName} {\n  return new ResourceClient<${kind}, ${listKind}>(rest, ${descriptorName}, namespace ?? rest.defaultNamespace) as unknown as ${clientName};\n}\n`
    : `export function create${clientName}(rest: RestClient): ${clientName} {\n  return new ResourceClient<${kind}, ${listKind}>(rest, ${descriptorName}) as unknown as ${clientName};\n}\n`;

  const all = [...new Set([...RUNTIME_TYPE_IMPORTS, ...references.specifiers(runtimeModule)])].sort(
    compareStrings,
  );
  const importLine = `import { ResourceClient, ${all.map((name) => `type ${name}`).join(', ')} } from ${tsString(runtimeModule)};\n`;
  const header = `// Code generated by k-gen crd from ${source} (${crd.metadata.name}, ${version.name}). DO NOT EDIT.\n`;
  return `${header}\n${importLine}${body}`;
}

/**
 * generateCrdClients generates one module per served version of each CRD: an interface per
 * object schema (the root kind, its list, and a named interface per nested object, named by
 * path, e.g. `WidgetSpecPorts`), with TSDoc from the descriptions and required fields as the
 * schema lists them, a resource descriptor and a typed client factory. `x-kubernetes-int-or-string`
 * is `IntOrString`, `x-kubernetes-preserve-unknown-fields` adds an index signature, and the
 * root's `metadata` is always `ObjectMeta`. Deterministic.
 */
export function generateCrdClients(
  crds: readonly CustomResourceDefinition[],
  options: CrdGeneratorOptions,
): GeneratedFiles {
  const runtimeModule = options.runtimeModule ?? '@k/clientset';
  const files: GeneratedFiles = new Map();
  for (const crd of crds) {
    for (const version of [...crd.spec.versions].sort((a, b) => compareStrings(a.name, b.name))) {
      if (!version.served) continue;
      const path = `${options.outDirectory.replace(/\/+$/, '')}/${crdFileName(crd, version.name)}`;
      if (files.has(path)) throw new Error(`two CRDs would both write ${path}`);
      try {
        files.set(path, versionModule(crd, version, runtimeModule, options.source));
      } catch (error) {
        if (!(error instanceof SchemaDepthError)) throw error;
        throw new Error(
          `${options.source}: ${crd.spec.names.kind} ${version.name}: ${error.message}`,
          { cause: error },
        );
      }
    }
  }
  return files;
}
