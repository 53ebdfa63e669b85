import { ProtoFormatError, ProtoReader } from './proto-reader.js';
import { formatSeconds, type JsonObject, type ObjectMetaOptions } from './meta-v1.js';

// What the schema's decoders share: the field codes of a SchemaTable, a table's fields compiled
// for reading, and the readers of the values with a JSON form of their own.

/** FieldType codes of a schema table's field tuples. */
export const FieldType = {
  String: 0,
  Bool: 1,
  Int32: 2,
  Int64: 3,
  Uint32: 4,
  Uint64: 5,
  Bytes: 8,
  Message: 9,
  Time: 10,
  MicroTime: 11,
  Quantity: 13,
  IntOrString: 14,
  RawExtension: 15,
  FieldsV1: 16,
  ObjectMeta: 17,
  ListMeta: 18,
  Map: 19,
  /** a map value that is a named `[]string` (ExtraValue): a message of one repeated string. */
  Strings: 20,
} as const;

/** Flags of a schema table's field tuples. */
export const FieldFlag = {
  Repeated: 1,
  Pointer: 2,
  OmitEmpty: 4,
  Inline: 16,
} as const;

/** A field tuple of a SchemaTable message: `[jsonName, number, type, flags, ref]`. */
export type FieldTuple = readonly [string, number, number, number, (number | readonly number[])?];

/** Field is a field tuple checked and named. */
export interface Field {
  readonly json: string;
  readonly number: number;
  readonly type: number;
  readonly flags: number;
  /** message is the message index of a message field or a map's message value (else -1). */
  readonly message: number;
  /** valueType is a map's value type. */
  readonly valueType: number;
}

/** Message is a table message compiled for reading. */
export interface Message {
  readonly fields: readonly Field[];
  /** byNumber maps a field number to its index in `fields` (-1: not a field of the message). */
  readonly byNumber: Int16Array;
  /** Shape makes an empty object for the message's JSON form (see {@link plainObjectShape}). */
  readonly Shape: new () => JsonObject;
}

/**
 * MessageDecoder reads one message from `reader`, up to `end`, into `target` (a new object by
 * default) and returns it; `reader` is left at `end`.
 */
export type MessageDecoder = (
  reader: ProtoReader,
  end: number,
  options: ObjectMetaOptions,
  target?: JsonObject,
) => JsonObject;

/** MessageTable is the messages of one schema, each compiled on first use. */
export interface MessageTable {
  at(index: number): Message;
  decoder(index: number): MessageDecoder;
}

/**
 * plainObjectShape returns a constructor of plain objects (prototype Object.prototype) for one
 * message type. Objects made by one constructor have room for their properties in the object
 * itself, sized by V8 from the first ones made, where `{}` keeps all but four in a separate,
 * growing array: the cache of a 10,000-object informer holds a fifth less memory so, as
 * JSON.parse's exactly-sized objects do.
 */
function plainObjectShape(): new () => JsonObject {
  const Shape = function Shape() {} as unknown as new () => JsonObject;
  Shape.prototype = Object.prototype;
  return Shape;
}

// Every code of a table is written into generated decoders: only non-negative integers pass.
function checkedCode(json: string, what: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0x1fff_ffff) {
    throw new ProtoFormatError(
      `the schema's field ${JSON.stringify(json)} has a ${what} that is not one: ${String(value)}`,
    );
  }
  return value;
}

/** compileMessage checks a table message's tuples and indexes its fields by number. */
export function compileMessage(tuples: readonly FieldTuple[]): Message {
  const fields = tuples.map(([json, number, type, flags, ref]): Field => {
    if (typeof json !== 'string') {
      throw new ProtoFormatError(`the schema has a field name that is not a string`);
    }
    const checked = {
      json,
      number: checkedCode(json, 'field number', number),
      type: checkedCode(json, 'type', type),
      flags: checkedCode(json, 'flag set', flags),
    };
    if (type === FieldType.Map) {
      const [valueType, valueMessage] = Array.isArray(ref) ? (ref as readonly number[]) : [];
      return {
        ...checked,
        valueType: checkedCode(json, 'map value type', valueType ?? 0),
        message: valueMessage === undefined ? -1 : checkedCode(json, 'message', valueMessage),
      };
    }
    const message = typeof ref === 'number' ? checkedCode(json, 'message', ref) : -1;
    return { ...checked, message, valueType: 0 };
  });
  let highest = 0;
  for (const field of fields) highest = Math.max(highest, field.number);
  const byNumber = new Int16Array(highest + 1).fill(-1);
  fields.forEach((field, index) => (byNumber[field.number] = index));
  return { fields, byNumber, Shape: plainObjectShape() };
}

/** wireTypeOf is the protobuf wire type a field of `type` is sent as. */
export function wireTypeOf(type: number): number {
  return type === FieldType.Bool ||
    type === FieldType.Int32 ||
    type === FieldType.Int64 ||
    type === FieldType.Uint32 ||
    type === FieldType.Uint64
    ? 0
    : 2;
}

/** isScalar is true for the types Go's `omitempty` leaves out when zero (strings, numbers, bools, bytes). */
function isScalar(type: number): boolean {
  return type <= FieldType.Bytes;
}

/** AbsentField is what Go's JSON has for a field protobuf did not carry. */
export const AbsentField = {
  /** a nil pointer, slice, map or []byte */
  Null: 0,
  /** `omitempty`: nothing */
  Omitted: 1,
  /** the type's zero value */
  Zero: 2,
} as const;

/**
 * absentField says what Go's JSON has for `field` when protobuf did not carry it: nil for a
 * pointer, slice, map or []byte (null, or nothing with omitempty); the zero value otherwise
 * (nothing for an omitempty scalar). Inline fields are their embedded fields' business.
 */
export function absentField(field: Field): (typeof AbsentField)[keyof typeof AbsentField] {
  const { flags, type } = field;
  const omitEmpty = (flags & FieldFlag.OmitEmpty) !== 0;
  if (
    flags & (FieldFlag.Repeated | FieldFlag.Pointer) ||
    type === FieldType.Map ||
    type === FieldType.Bytes
  ) {
    return omitEmpty ? AbsentField.Omitted : AbsentField.Null;
  }
  return omitEmpty && isScalar(type) ? AbsentField.Omitted : AbsentField.Zero;
}

/** omittedWhenEmpty is true for an omitempty scalar (no pointer, no list): `''`, 0 and false are left out. */
export function omittedWhenEmpty(field: Field): boolean {
  const { flags } = field;
  return (
    (flags & FieldFlag.OmitEmpty) !== 0 &&
    (flags & (FieldFlag.Pointer | FieldFlag.Repeated)) === 0 &&
    isScalar(field.type)
  );
}

/**
 * zeroValue is the JSON form of the Go zero value of `type`, for any type but a message (whose
 * zero value is its decoder's answer to no bytes); a fresh object for ObjectMeta and ListMeta.
 */
export function zeroValue(type: number): string | number | boolean | null | JsonObject {
  switch (type) {
    case FieldType.String:
    case FieldType.Bytes:
      return '';
    case FieldType.Bool:
      return false;
    case FieldType.Quantity:
      return '0';
    case FieldType.Time:
    case FieldType.MicroTime:
    case FieldType.RawExtension:
    case FieldType.FieldsV1:
    case FieldType.Strings:
      return null;
    case FieldType.ObjectMeta:
    case FieldType.ListMeta:
      return {};
    default:
      return 0; // numbers and IntOrString
  }
}

// A reader over nothing (never advanced, so one serves every call): decoding it gives a
// message's zero value.
export const EMPTY = new ProtoReader(Buffer.alloc(0));

/** decodeMicroTime reads a metav1.MicroTime as its JSON form (RFC 3339, six fraction digits). */
export function decodeMicroTime(reader: ProtoReader): string | null {
  if (reader.done) return null;
  let seconds = 0;
  let nanos = 0;
  while (!reader.done) {
    const key = reader.key();
    if (key === 1 << 3) seconds = reader.int64();
    else if (key === 2 << 3) nanos = reader.int32();
    else reader.skip(key & 7);
  }
  const micros = String(Math.floor(nanos / 1000)).padStart(6, '0');
  return `${formatSeconds(seconds).slice(0, 19)}.${micros}Z`;
}

/** readOneString reads a message's field 1 as a string (a Quantity). */
export function readOneString(reader: ProtoReader): string {
  let value = '';
  while (!reader.done) {
    const key = reader.key();
    if (key === (1 << 3) + 2) value = reader.string();
    else reader.skip(key & 7);
  }
  return value;
}

/** readStrings reads a message of one repeated string (an ExtraValue) as an array. */
export function readStrings(reader: ProtoReader): string[] {
  const items: string[] = [];
  while (!reader.done) {
    const key = reader.key();
    if (key === (1 << 3) + 2) items.push(reader.string());
    else reader.skip(key & 7);
  }
  return items;
}

/** decodeIntOrString reads an intstr.IntOrString: a JSON number, or a string when its type is 1. */
export function decodeIntOrString(reader: ProtoReader): number | string {
  let type = 0;
  let intValue = 0;
  let stringValue = '';
  while (!reader.done) {
    const key = reader.key();
    if (key === 1 << 3) type = reader.int64();
    else if (key === 2 << 3) intValue = reader.int32();
    else if (key === (3 << 3) + 2) stringValue = reader.string();
    else reader.skip(key & 7);
  }
  return type === 1 ? stringValue : intValue;
}
