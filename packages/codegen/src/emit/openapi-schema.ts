/**
 * OpenApiSchema is the subset of an OpenAPI v3 schema object (and of a CRD's JSONSchemaProps)
 * the generator understands, with the Kubernetes extensions it reads.
 */
export interface OpenApiSchema {
  $ref?: string | undefined;
  type?: string | undefined;
  format?: string | undefined;
  description?: string | undefined;
  properties?: Record<string, OpenApiSchema> | undefined;
  required?: string[] | undefined;
  items?: OpenApiSchema | undefined;
  additionalProperties?: boolean | OpenApiSchema | undefined;
  allOf?: OpenApiSchema[] | undefined;
  oneOf?: OpenApiSchema[] | undefined;
  anyOf?: OpenApiSchema[] | undefined;
  enum?: unknown[] | undefined;
  nullable?: boolean | undefined;
  default?: unknown;
  'x-kubernetes-group-version-kind'?:
    { group: string; version: string; kind: string }[] | undefined;
  'x-kubernetes-int-or-string'?: boolean | undefined;
  'x-kubernetes-preserve-unknown-fields'?: boolean | undefined;
  'x-kubernetes-embedded-resource'?: boolean | undefined;
  'x-kubernetes-list-type'?: string | undefined;
  'x-kubernetes-list-map-keys'?: string[] | undefined;
}

/** OpenApiDocument is a group version's `/openapi/v3/...` document. */
export interface OpenApiDocument {
  components?: { schemas?: Record<string, OpenApiSchema> | undefined } | undefined;
  paths?: Record<string, unknown> | undefined;
}
