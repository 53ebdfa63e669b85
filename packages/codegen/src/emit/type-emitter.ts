import type { OpenApiSchema } from './openapi-schema.js';
import { docComment } from './doc-comment.js';
import { pascalCase, propertyKey, singularTypeName, tsString } from './names.js';

/** TypeReferences resolves `$ref`s and named types of one output module, recording its imports. */
export interface TypeReferences {
  /** reference returns the type expression for `$ref` (e.g. `ObjectMeta`) and records the import. */
  reference(ref: string): string;
  /** named returns the name for a well-known type (`IntOrString`, `ObjectMeta`) and records the import. */
  named(name: 'IntOrString' | 'ObjectMeta'): string;
  /**
   * nested gives an anonymous object schema a name (CRDs: `WidgetSpec`) and queues it for
   * emission; returns undefined to inline it instead (built-in documents name everything).
   */
  nested?(path: readonly string[], schema: OpenApiSchema): string | undefined;
}

/** TypeContext is where a schema is emitted: how its references resolve, its path, its literals. */
export interface TypeContext {
  references: TypeReferences;
  /** path names the place of the schema (for naming nested types), e.g. `['Widget', 'spec']`. */
  path: readonly string[];
  /** literals replace a property's type, e.g. `apiVersion` → `'apps/v1'` for a single-kind schema. */
  literals?: Readonly<Record<string, string>> | undefined;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

function arrayOf(element: string): string {
  return /[|&]/.test(element) ? `(${element})[]` : `${element}[]`;
}

function single(schemas: OpenApiSchema[] | undefined): OpenApiSchema | undefined {
  return schemas && schemas.length === 1 ? schemas[0] : undefined;
}

function literal(value: unknown): string {
  return typeof value === 'string' ? tsString(value) : JSON.stringify(value);
}

function isObjectWithProperties(schema: OpenApiSchema): boolean {
  return schema.properties !== undefined && Object.keys(schema.properties).length > 0;
}

/**
 * MAX_SCHEMA_DEPTH is how deep {@link typeExpression} follows a schema's inline nesting (array
 * items, map values, `allOf`/`oneOf`/`anyOf`, inline objects): far deeper than any real schema,
 * and well above where the call stack would end (a CRD's schema is whatever its author wrote;
 * 5,000 levels of `allOf` overflowed it).
 */
const MAX_SCHEMA_DEPTH = 1000;

/** SchemaDepthError says that a schema nests deeper than {@link typeExpression} follows. */
export class SchemaDepthError extends Error {}

/** nesting counts the calls of {@link typeExpression} in progress (emission is synchronous). */
let nesting = 0;

/**
 * typeExpression returns the TypeScript type of `schema`: `$ref`s and single-entry `allOf`s are
 * names, `int-or-string` is `IntOrString` (`number | string`), every other string (`date-time`,
 * `byte`, quantities) is `string`, integers and numbers are `number`, enums are unions of
 * literals, maps are index signatures, `nullable` adds `| null`, and objects without a schema are
 * `{ [key: string]: unknown }`. Nested object schemas are named through `references.nested` when
 * it names them, else written inline. A schema nested deeper than {@link MAX_SCHEMA_DEPTH} is an
 * error naming where it starts.
 */
export function typeExpression(schema: OpenApiSchema, context: TypeContext): string {
  if (nesting >= MAX_SCHEMA_DEPTH) {
    const path =
      context.path.length > 8 ? `${context.path.slice(0, 8).join('.')}…` : context.path.join('.');
    throw new SchemaDepthError(
      `the schema of ${path} nests deeper than ${MAX_SCHEMA_DEPTH} levels`,
    );
  }
  nesting += 1;
  try {
    const base = baseExpression(schema, context);
    return schema.nullable && base !== 'unknown' ? union([base, 'null']) : base;
  } finally {
    nesting -= 1;
  }
}

function baseExpression(schema: OpenApiSchema, context: TypeContext): string {
  const { references } = context;
  if (schema.$ref) return references.reference(schema.$ref);
  const only = single(schema.allOf);
  if (only) return typeExpression(only, context);
  if (schema['x-kubernetes-int-or-string'] || schema.format === 'int-or-string') {
    return references.named('IntOrString');
  }
  if (schema.enum && schema.enum.length > 0) return union(schema.enum.map(literal));
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (!schema.type && alternatives && alternatives.length > 0) {
    return union(alternatives.map((alternative) => typeExpression(alternative, context)));
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return arrayOf(
        schema.items
          ? typeExpression(schema.items, { references, path: [...context.path, 'item'] })
          : 'unknown',
      );
    case 'object':
    case undefined:
      return objectExpression(schema, context);
    default:
      return 'unknown';
  }
}

function objectExpression(schema: OpenApiSchema, context: TypeContext): string {
  const { references } = context;
  if (isObjectWithProperties(schema) || schema['x-kubernetes-embedded-resource']) {
    const named = references.nested?.(context.path, schema);
    if (named) return named;
    return `{\n${propertyLines(schema, context, '  ').join('')}}`;
  }
  if (typeof schema.additionalProperties === 'object') {
    const value = typeExpression(schema.additionalProperties, {
      references,
      path: [...context.path, 'value'],
    });
    return `{ [key: string]: ${value} }`;
  }
  if (schema.type === 'object' || schema.additionalProperties === true) {
    return '{ [key: string]: unknown }';
  }
  return schema['x-kubernetes-preserve-unknown-fields'] ? '{ [key: string]: unknown }' : 'unknown';
}

/**
 * propertyLines returns one documented line per property of an object schema, optional (`?`,
 * with `| undefined`) unless the schema lists it as required; an embedded resource gets `apiVersion`, `kind` and `metadata`,
 * and preserved unknown fields an index signature.
 */
export function propertyLines(
  schema: OpenApiSchema,
  context: TypeContext,
  indent: string,
): string[] {
  const required = new Set(schema.required ?? []);
  const properties: Record<string, OpenApiSchema> = { ...schema.properties };
  if (schema['x-kubernetes-embedded-resource']) {
    properties.apiVersion ??= { type: 'string' };
    properties.kind ??= { type: 'string' };
  }
  const lines: string[] = [];
  for (const name of Object.keys(properties).sort()) {
    const property = properties[name] as OpenApiSchema;
    const literalType = context.literals?.[name];
    const type =
      literalType ??
      typeExpression(property, { references: context.references, path: [...context.path, name] });
    const declared = required.has(name) ? `: ${type}` : `?: ${optionalType(type)}`;
    lines.push(
      `${docComment(property.description, indent)}${indent}${propertyKey(name)}${indentBlock(declared, indent)};\n`,
    );
  }
  if (schema['x-kubernetes-embedded-resource'] && !('metadata' in properties)) {
    lines.push(`${indent}metadata?: ${context.references.named('ObjectMeta')} | undefined;\n`);
  }
  if (schema['x-kubernetes-preserve-unknown-fields']) {
    lines.push(`${indent}[key: string]: unknown;\n`);
  }
  return lines;
}

/**
 * optionalType is the type of an optional property: `type | undefined`, so users with
 * `exactOptionalPropertyTypes` may pass a possibly undefined value through (`unknown` already
 * accepts it).
 */
function optionalType(type: string): string {
  return type === 'unknown' ? type : `${type} | undefined`;
}

function indentBlock(type: string, indent: string): string {
  return type.includes('\n') ? type.replace(/\n/g, `\n${indent}`) : type;
}

/**
 * declaration returns the exported declaration of a named schema: an interface for an object with
 * properties (or an embedded resource), else a type alias, with the description as TSDoc.
 */
export function declaration(name: string, schema: OpenApiSchema, context: TypeContext): string {
  const doc = docComment(schema.description);
  const target = single(schema.allOf) && !schema.properties ? single(schema.allOf) : schema;
  if (target && (isObjectWithProperties(target) || target['x-kubernetes-embedded-resource'])) {
    const lines = propertyLines(target, context, '  ');
    return `${doc}export interface ${name} {\n${lines.join('')}}\n`;
  }
  const type = typeExpression(schema, {
    ...context,
    references: withoutNesting(context.references),
  });
  return `${doc}export type ${name} = ${type};\n`;
}

function withoutNesting(references: TypeReferences): TypeReferences {
  return { reference: (ref) => references.reference(ref), named: (name) => references.named(name) };
}

/** NestedTypeNameOptions configure {@link nestedTypeName}. */
export interface NestedTypeNameOptions {
  /** singularItems names the element of an array in the singular (default true). */
  singularItems?: boolean | undefined;
}

/**
 * nestedTypeName names a nested schema after its path, the element of an array in the singular
 * ({@link singularTypeName}): `['Widget', 'spec', 'ports', 'item']` → `WidgetSpecPort`,
 * `['Widget', 'spec', 'resources', 'value']` → `WidgetSpecResources`; with
 * `singularItems: false`, `WidgetSpecPorts`.
 */
export function nestedTypeName(
  path: readonly string[],
  options: NestedTypeNameOptions = {},
): string {
  const singularItems = options.singularItems ?? true;
  return path
    .map((segment, index) => {
      if (segment === 'item' || segment === 'value') return '';
      const name = pascalCase(segment);
      return singularItems && path[index + 1] === 'item' ? singularTypeName(name) : name;
    })
    .join('');
}
