import { compareStrings, type OpenApiDocument, type OpenApiSchema } from '@k/codegen/emit';

/** SchemaLocation is where a named schema is declared in the generated code. */
export interface SchemaLocation {
  /** module is the directory below `generated/`, e.g. `core/v1`, `meta/v1`. */
  module: string;
  /** name is the TypeScript name, e.g. `Pod`. */
  name: string;
}

/** The Go packages of apimachinery whose few types live in `meta/v1` (Quantity, IntOrString, RawExtension). */
const MODULE_OF_PACKAGE: Readonly<Record<string, string>> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1': 'meta/v1',
  'io.k8s.apimachinery.pkg.api.resource': 'meta/v1',
  'io.k8s.apimachinery.pkg.runtime': 'meta/v1',
  'io.k8s.apimachinery.pkg.util.intstr': 'meta/v1',
  'io.k8s.apimachinery.pkg.version': 'meta/v1',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1': 'apiextensions/v1',
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1': 'apiregistration/v1',
};

/**
 * schemaLocation maps an OpenAPI schema name to its generated module and TypeScript name:
 * `io.k8s.api.<group>.<version>.<Kind>` → `<group>/<version>`, apimachinery → `meta/v1`,
 * apiextensions and the aggregator → their groups. An unknown package is an error, so a new one
 * gets a deliberate home.
 */
export function schemaLocation(schemaName: string): SchemaLocation {
  const dot = schemaName.lastIndexOf('.');
  const packageName = schemaName.slice(0, dot);
  const name = schemaName.slice(dot + 1);
  const mapped = MODULE_OF_PACKAGE[packageName];
  if (mapped) return { module: mapped, name };
  const match = /^io\.k8s\.api\.([a-z0-9]+)\.(v[0-9a-z]+)$/.exec(packageName);
  if (match) return { module: `${match[1]}/${match[2]}`, name };
  throw new Error(
    `no generated module for the schema package ${packageName} (schema ${schemaName})`,
  );
}

function mergeGroupVersionKinds(
  first: OpenApiSchema,
  second: OpenApiSchema,
): OpenApiSchema['x-kubernetes-group-version-kind'] {
  const all = [
    ...(first['x-kubernetes-group-version-kind'] ?? []),
    ...(second['x-kubernetes-group-version-kind'] ?? []),
  ];
  const seen = new Map(all.map((gvk) => [`${gvk.group}/${gvk.version}/${gvk.kind}`, gvk]));
  return [...seen.keys()].sort(compareStrings).map((key) => seen.get(key)!);
}

function withoutGroupVersionKinds(schema: OpenApiSchema): string {
  const copy = { ...schema };
  delete copy['x-kubernetes-group-version-kind'];
  return JSON.stringify(copy);
}

/**
 * mergeSchemas collects the schemas of every document. The same name must mean the same schema
 * everywhere, except for the group-version-kind list (DeleteOptions and WatchEvent list the kinds
 * of the document's group), which is merged; any other difference is an error naming both places.
 */
export function mergeSchemas(
  documents: ReadonlyMap<string, OpenApiDocument>,
): Map<string, OpenApiSchema> {
  const merged = new Map<string, OpenApiSchema>();
  const origin = new Map<string, string>();
  for (const documentName of [...documents.keys()].sort(compareStrings)) {
    const schemas = documents.get(documentName)?.components?.schemas ?? {};
    for (const name of Object.keys(schemas).sort(compareStrings)) {
      const schema = schemas[name] as OpenApiSchema;
      const existing = merged.get(name);
      if (!existing) {
        merged.set(name, schema);
        origin.set(name, documentName);
        continue;
      }
      if (withoutGroupVersionKinds(existing) !== withoutGroupVersionKinds(schema)) {
        throw new Error(
          `schema ${name} differs between ${origin.get(name) ?? '?'} and ${documentName}`,
        );
      }
      const kinds = mergeGroupVersionKinds(existing, schema);
      if (kinds && kinds.length > 0) {
        merged.set(name, { ...existing, 'x-kubernetes-group-version-kind': kinds });
      }
    }
  }
  return new Map([...merged].sort(([a], [b]) => compareStrings(a, b)));
}
