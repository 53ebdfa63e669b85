import { ProtobufSchema, registerProtobufSchema, type SchemaTable } from '@k/rest/protobuf';
import { PROTOBUF_SCHEMA_TABLE } from '../generated/protobuf-schema.js';
import { apiVersionOf, type ResourceDescriptor } from './resource-descriptor.js';

/**
 * PROTOBUF_ACCEPT is the Accept of a typed read of a built-in kind, client-go's (its generated
 * clients prefer protobuf): the server answers protobuf, or JSON where it has no protobuf.
 */
export const PROTOBUF_ACCEPT = 'application/vnd.kubernetes.protobuf,application/json';

const BUILTIN_SCHEMA = new ProtobufSchema(() => JSON.parse(PROTOBUF_SCHEMA_TABLE) as SchemaTable);

/**
 * readsProtobuf is true when reads of `descriptor`'s kind can ask for protobuf: a built-in kind
 * of a served group version, whose messages this client decodes to the objects JSON gives.
 */
export function readsProtobuf(descriptor: ResourceDescriptor): boolean {
  if (descriptor.kind === '' || !BUILTIN_SCHEMA.has(apiVersionOf(descriptor), descriptor.kind)) {
    return false;
  }
  registerProtobufSchema(BUILTIN_SCHEMA);
  return true;
}
