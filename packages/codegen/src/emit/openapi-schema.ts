/**
 * OpenApiSchema is the subset of an OpenAPI v3 schema object (and of a CRD's JSONSchemaProps)
 * the generator understands, with the Kubernetes extensions it reads.
 */
export interface OpenApiSchema {
  $ref?: string;
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  items?: OpenApiSchema;
  additionalProperties?: boolean | OpenApiSchema;
  allOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  anyOf?: OpenApiSchema[];
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
}

/** OpenApiDocument is a group version's `/openapi/v3/...` document. */
export interface OpenApiDocument {
  components?: { schemas?: Record<string, OpenApiSchema> };
  paths?: Record<string, unknown>;
}
