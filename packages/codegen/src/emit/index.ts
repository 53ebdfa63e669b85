// @k/codegen/emit: the TypeScript emitter k-gen is built from (OpenAPI v3 schemas → interfaces),
// for generators of your own. Used by the workspace's @k/clientset generator; 0.x, may change.
export { docComment } from './doc-comment.js';
export { ModuleReferences } from './module-references.js';
export type { ReferencedType } from './module-references.js';
export {
  groupId,
  groupVersionProperty,
  groupVersionTypeName,
  kebabCase,
  lowerCamel,
  lowerFirst,
  lowerLeadingAcronym,
  pascalCase,
  pluralKindName,
  propertyKey,
  resourceMethodName,
  singularTypeName,
  tsString,
  tsStrings,
  upperFirst,
} from './names.js';
export type { OpenApiDocument, OpenApiSchema } from './openapi-schema.js';
export { compareStrings, sortKeys, stableJson } from './stable-json.js';
export { declaration, nestedTypeName, propertyLines, typeExpression } from './type-emitter.js';
export type { NestedTypeNameOptions, TypeContext, TypeReferences } from './type-emitter.js';
