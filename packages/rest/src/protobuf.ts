// @k/rest/protobuf: decoding protobuf answers of kinds beyond meta.k8s.io/v1 — a schema table
// registered once per process (@k/clientset registers the built-in kinds').
export { ProtobufSchema } from './protobuf/protobuf-schema.js';
export type { ProtobufSchemaOptions, SchemaTable } from './protobuf/protobuf-schema.js';
export { registerProtobufSchema } from './protobuf/protobuf-object.js';
