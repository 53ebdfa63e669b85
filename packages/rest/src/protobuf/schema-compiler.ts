import {
  decodeListMeta,
  decodeObjectMeta,
  decodeRawJson,
  decodeTime,
  setEntry,
} from './meta-v1.js';
import { ProtoFormatError } from './proto-reader.js';
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

// The schema's decoders, generated per message as JavaScript on first use (as protobufjs and
// ajv generate theirs): a switch over the message's field keys into locals, then the JSON fields
// written in struct order by name. Each write site then sees one object shape, where a decoder
// that walks the table writes every message through one site of many shapes (V8's slowest
// store); and embedded messages share their parent's reader instead of a reader each.
//
// Only the table's checked integers and JSON.stringify'd names are written into the source.

/** The helpers generated code calls, passed in as `k`. */
const HELPERS = {
  decodeTime,
  decodeMicroTime,
  readOneString,
  decodeIntOrString,
  decodeRawJson,
  decodeObjectMeta,
  decodeListMeta,
  readStrings,
  setEntry,
  EMPTY,
};

const SCALAR_READS: Readonly<Record<number, string>> = {
  [FieldType.Bool]: 'r.bool()',
  [FieldType.Int32]: 'r.int32()',
  [FieldType.Uint32]: 'r.uint32()',
  [FieldType.Int64]: 'r.int64()', // int64 and uint64, exact within 2^53 as JSON.parse's numbers are
  [FieldType.Uint64]: 'r.int64()',
};

/** decoderOf is the source of message `ref`'s decoder, compiled when first called. */
const decoderOf = (ref: number): string => `(d[${ref}] ?? c(${ref}))`;

/** readSource is the source of an expression reading one value of `type` from `r`. */
function readSource(field: Field, type: number, ref: number): string {
  switch (type) {
    case FieldType.String:
      return 'r.string()';
    case FieldType.Bytes:
      return "r.bytesField().toString('base64')";
    case FieldType.Bool:
    case FieldType.Int32:
    case FieldType.Int64:
    case FieldType.Uint32:
    case FieldType.Uint64:
      return SCALAR_READS[type] as string;
    case FieldType.Message:
      // An expression for the decoder's own call site: each site calls one decoder.
      return `(e = r.embeddedEnd(), x = ${decoderOf(ref)}(r, e, o), r.endEmbedded(e), x)`;
    case FieldType.Time:
      return '(k.decodeTime(r.message()) ?? null)';
    case FieldType.MicroTime:
      return 'k.decodeMicroTime(r.message())';
    case FieldType.Quantity:
      return "(k.readOneString(r.message()) || '0')";
    case FieldType.IntOrString:
      return 'k.decodeIntOrString(r.message())';
    case FieldType.RawExtension:
    case FieldType.FieldsV1:
      return `k.decodeRawJson(r.message(), ${JSON.stringify(`field ${JSON.stringify(field.json)}`)})`;
    case FieldType.ObjectMeta:
      return 'k.decodeObjectMeta(r.message(), o)';
    case FieldType.ListMeta:
      return 'k.decodeListMeta(r.message())';
    case FieldType.Strings:
      return 'k.readStrings(r.message())';
    default:
      throw new ProtoFormatError(`field ${JSON.stringify(field.json)} has an unknown type ${type}`);
  }
}

/** zeroSource is the source of the JSON form of a Go zero value of `type` (a fresh object each time). */
function zeroSource(type: number, ref: number): string {
  return type === FieldType.Message
    ? `${decoderOf(ref)}(k.EMPTY, 0, o)`
    : JSON.stringify(zeroValue(type));
}

/** caseSource is the `case` clauses that read `field` into local `v<index>`. */
function caseSource(field: Field, index: number): string {
  const local = `v${index}`;
  const { type } = field;
  const wireType = wireTypeOf(type);
  const key = field.number * 8 + wireType;
  if (field.flags & FieldFlag.Repeated) {
    const one = `case ${key}: (${local} ??= []).push(${readSource(field, type, field.message)}); break;`;
    if (wireType !== 0) return one;
    // Packed scalars: one length-delimited run of them.
    return `case ${field.number * 8 + 2}: { const limit = r.embeddedEnd(); const l = (${local} ??= []); while (r.position < limit) l.push(${SCALAR_READS[type]}); r.endEmbedded(limit); break; }
${one}`;
  }
  if (type === FieldType.Map) {
    const valueKey = 16 + wireTypeOf(field.valueType);
    // An assignment to `__proto__` would set the map's prototype instead (see setEntry).
    return `case ${key}: {
  const limit = r.embeddedEnd();
  let mapKey = '', value;
  while (r.position < limit) {
    const entryKey = r.uint32();
    if (entryKey === 10) mapKey = r.string();
    else if (entryKey === ${valueKey}) value = ${readSource(field, field.valueType, field.message)};
    else r.skip(entryKey & 7);
  }
  r.endEmbedded(limit);
  if (value === undefined) value = ${zeroSource(field.valueType, field.message)};
  if (mapKey === '__proto__') k.setEntry((${local} ??= {}), mapKey, value);
  else (${local} ??= {})[mapKey] = value;
  break;
}`;
  }
  return `case ${key}: ${local} = ${readSource(field, type, field.message)}; break;`;
}

/** writeSource is the statement that writes local `v<index>` as `field`'s JSON form into `t`. */
function writeSource(field: Field, index: number): string {
  const local = `v${index}`;
  const { flags, type } = field;
  if (flags & FieldFlag.Inline) {
    // An embedded struct: its fields show at its place.
    return `Object.assign(t, ${local} === undefined ? ${zeroSource(FieldType.Message, field.message)} : ${local});`;
  }
  const name = JSON.stringify(field.json);
  const absentKind = absentField(field);
  const absent =
    absentKind === AbsentField.Null
      ? `t[${name}] = null;`
      : absentKind === AbsentField.Zero
        ? `t[${name}] = ${zeroSource(type, field.message)};`
        : '';
  // A list grew by push; its exact-size copy is what a cache keeps (JSON.parse sizes its arrays).
  let present = `t[${name}] = ${flags & FieldFlag.Repeated ? `${local}.slice()` : local};`;
  if (omittedWhenEmpty(field)) {
    present = `if (${local} !== '' && ${local} !== 0 && ${local} !== false) ${present}`;
  }
  return absent
    ? `if (${local} === undefined) ${absent} else { ${present} }`
    : `if (${local} !== undefined) { ${present} }`;
}

/** decoderSource is the source of a function returning message `index`'s decoder. */
function decoderSource(fields: readonly Field[]): string {
  const locals = fields.map((_, index) => `v${index}`);
  return `'use strict';
return function decode(r, end, o, target) {
let e, x${locals.length > 0 ? `, ${locals.join(', ')}` : ''};
while (r.position < end) {
  const key = r.uint32();
  switch (key) {
${fields.map(caseSource).join('\n')}
    default: r.skip(key & 7);
  }
}
const t = target ?? new S();
${fields.map(writeSource).join('\n')}
return t;
};`;
}

/**
 * compileDecoder generates message `index`'s decoder; it throws an EvalError where code
 * generation from strings is not allowed.
 */
export function compileDecoder(
  messages: MessageTable,
  index: number,
  decoders: readonly (MessageDecoder | undefined)[],
): MessageDecoder {
  const message = messages.at(index);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the decoder is generated from the checked table
  const factory = new Function('k', 'd', 'c', 'S', decoderSource(message.fields)) as (
    helpers: typeof HELPERS,
    compiled: readonly (MessageDecoder | undefined)[],
    compile: (ref: number) => MessageDecoder,
    Shape: new () => ReturnType<MessageDecoder>,
  ) => MessageDecoder;
  return factory(HELPERS, decoders, (ref) => messages.decoder(ref), message.Shape);
}
