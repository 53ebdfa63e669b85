import {
  decodeListMeta,
  decodeObjectMeta,
  decodeRawJson,
  decodeTime,
  setEntry,
  type JsonObject,
  type ObjectMetaOptions,
} from './meta-v1.js';
import { ProtoFormatError, ProtoReader } from './proto-reader.js';
import {
  AbsentField,
  EMPTY,
  FieldFlag,
  FieldType,
  absentField,
  omittedWhenEmpty,
  zeroValue,
  decodeIntOrString,
  decodeMicroTime,
  readOneString,
  readStrings,
  wireTypeOf,
  type Field,
  type MessageDecoder,
  type MessageTable,
} from './schema-fields.js';

// The schema's decoder where code generation from strings is not allowed (node
// --disallow-code-generation-from-strings): it walks the table for every message it reads, and
// gives what the generated decoders give (schema-compiler.ts), more slowly.

/** interpretedDecoder is message `index`'s decoder that walks the table. */
export function interpretedDecoder(messages: MessageTable, index: number): MessageDecoder {
  return (reader, end, options, target) => {
    const object = target ?? new (messages.at(index).Shape)();
    decodeInto(
      messages,
      index,
      new ProtoReader(reader.bytes, reader.position, end, reader.depth),
      options,
      object,
    );
    reader.position = end;
    return object;
  };
}

/** decodeInto reads message `index` from `reader` and writes its JSON fields into `object`. */
function decodeInto(
  messages: MessageTable,
  index: number,
  reader: ProtoReader,
  options: ObjectMetaOptions,
  object: JsonObject,
): void {
  const { fields, byNumber } = messages.at(index);
  const values: unknown[] = new Array<unknown>(fields.length);
  while (!reader.done) {
    const key = reader.key();
    const number = key >>> 3;
    const wireType = key & 7;
    const fieldIndex = number < byNumber.length ? (byNumber[number] as number) : -1;
    if (fieldIndex < 0) {
      reader.skip(wireType);
      continue;
    }
    const field = fields[fieldIndex] as Field;
    const { type } = field;
    if (field.flags & FieldFlag.Repeated) {
      const list = (values[fieldIndex] ??= []) as unknown[];
      if (wireType === 2 && wireTypeOf(type) === 0) {
        const packed = reader.message(); // packed scalars: one length-delimited run
        while (!packed.done) list.push(readScalar(packed, type));
      } else if (wireType === wireTypeOf(type)) {
        list.push(readValue(messages, field, type, field.message, reader, options));
      } else reader.skip(wireType);
    } else if (wireType !== wireTypeOf(type)) {
      reader.skip(wireType);
    } else if (type === FieldType.Map) {
      const map = (values[fieldIndex] ??= {}) as JsonObject;
      readMapEntry(messages, field, reader.message(), options, map);
    } else {
      values[fieldIndex] = readValue(messages, field, type, field.message, reader, options);
    }
  }
  for (let position = 0; position < fields.length; position += 1) {
    writeField(messages, fields[position] as Field, values[position], options, object);
  }
}

/** decodeMessage reads message `index` into a new object (EMPTY gives its zero value). */
function decodeMessage(
  messages: MessageTable,
  index: number,
  reader: ProtoReader,
  options: ObjectMetaOptions,
): JsonObject {
  const object = new (messages.at(index).Shape)();
  decodeInto(messages, index, reader, options, object);
  return object;
}

function readScalar(reader: ProtoReader, type: number): unknown {
  switch (type) {
    case FieldType.Bool:
      return reader.bool();
    case FieldType.Int32:
      return reader.int32();
    case FieldType.Uint32:
      return reader.uint32();
    default:
      return reader.int64(); // int64 and uint64, exact within 2^53 as JSON.parse's numbers are
  }
}

/** readValue reads one value of `type`; a message-like value is decoded to its JSON form. */
function readValue(
  messages: MessageTable,
  field: Field,
  type: number,
  messageIndex: number,
  reader: ProtoReader,
  options: ObjectMetaOptions,
): unknown {
  switch (type) {
    case FieldType.String:
      return reader.string();
    case FieldType.Bytes:
      return reader.bytesField().toString('base64');
    case FieldType.Bool:
    case FieldType.Int32:
    case FieldType.Int64:
    case FieldType.Uint32:
    case FieldType.Uint64:
      return readScalar(reader, type);
    case FieldType.Message:
      return decodeMessage(messages, messageIndex, reader.message(), options);
    case FieldType.Time:
      return decodeTime(reader.message()) ?? null;
    case FieldType.MicroTime:
      return decodeMicroTime(reader.message());
    case FieldType.Quantity:
      return readOneString(reader.message()) || '0';
    case FieldType.IntOrString:
      return decodeIntOrString(reader.message());
    case FieldType.RawExtension:
    case FieldType.FieldsV1:
      return decodeRawJson(reader.message(), `field ${JSON.stringify(field.json)}`);
    case FieldType.ObjectMeta:
      return decodeObjectMeta(reader.message(), options);
    case FieldType.ListMeta:
      return decodeListMeta(reader.message());
    case FieldType.Strings:
      return readStrings(reader.message());
    default:
      throw new ProtoFormatError(`field ${JSON.stringify(field.json)} has an unknown type ${type}`);
  }
}

function readMapEntry(
  messages: MessageTable,
  field: Field,
  entry: ProtoReader,
  options: ObjectMetaOptions,
  map: JsonObject,
): void {
  let key = '';
  let value: unknown;
  while (!entry.done) {
    const entryKey = entry.key();
    const number = entryKey >>> 3;
    const wireType = entryKey & 7;
    if (number === 1 && wireType === 2) key = entry.string();
    else if (number === 2 && wireType === wireTypeOf(field.valueType)) {
      value = readValue(messages, field, field.valueType, field.message, entry, options);
    } else entry.skip(wireType);
  }
  setEntry(
    map,
    key,
    value === undefined ? zeroOf(messages, field.valueType, field.message, options) : value,
  );
}

/** writeField writes one field's JSON form into `object` (or nothing, where Go's JSON omits it). */
function writeField(
  messages: MessageTable,
  field: Field,
  value: unknown,
  options: ObjectMetaOptions,
  object: JsonObject,
): void {
  const { flags, type } = field;
  if (flags & FieldFlag.Inline) {
    if (value === undefined) {
      decodeInto(messages, field.message, EMPTY, options, object);
    } else Object.assign(object, value);
    return;
  }
  if (value === undefined) {
    const absent = absentField(field);
    if (absent === AbsentField.Null) object[field.json] = null;
    else if (absent === AbsentField.Zero) {
      object[field.json] = zeroOf(messages, type, field.message, options);
    }
    return;
  }
  if (omittedWhenEmpty(field) && (value === '' || value === 0 || value === false)) return;
  // A list grew by push, with room for more; its exact-size copy is what the cache keeps (JSON.parse
  // sizes its arrays exactly).
  object[field.json] = flags & FieldFlag.Repeated ? (value as unknown[]).slice() : value;
}

/** zeroOf is the JSON form of a Go zero value of `type` (a message's: its decoding of no bytes). */
function zeroOf(
  messages: MessageTable,
  type: number,
  messageIndex: number,
  options: ObjectMetaOptions,
): unknown {
  return type === FieldType.Message
    ? decodeMessage(messages, messageIndex, EMPTY, options)
    : zeroValue(type);
}
