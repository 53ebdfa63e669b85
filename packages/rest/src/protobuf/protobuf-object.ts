import {
  decodeBookmarkMeta,
  decodePartialObjectMetadata,
  decodePartialObjectMetadataList,
  decodeStatus,
  type JsonObject,
  type ObjectMetaOptions,
} from './meta-v1.js';
import { ProtoFormatError, ProtoReader } from './proto-reader.js';
import type { ProtobufSchema } from './protobuf-schema.js';

/** PROTOBUF_MEDIA_TYPE is Kubernetes' protobuf encoding (client-go's `ContentTypeProtobuf`). */
const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

// Every protobuf object starts with these four bytes ("k8s\0"), then a runtime.Unknown.
const MAGIC = Buffer.from('k8s\u0000', 'latin1');

/** isProtobufMediaType is true for a Content-Type or Accept entry of the protobuf encoding. */
export function isProtobufMediaType(mediaType: string | undefined): boolean {
  if (mediaType === undefined) return false;
  const type = mediaType.split(';', 1)[0]?.trim().toLowerCase();
  return type === PROTOBUF_MEDIA_TYPE;
}

type ObjectDecoder = (reader: ProtoReader, options: ObjectMetaOptions) => unknown;

// The kinds this client asks for as protobuf (a metadata client's), by `apiVersion kind`.
const DECODERS = new Map<string, ObjectDecoder>([
  ['meta.k8s.io/v1 PartialObjectMetadata', decodePartialObjectMetadata],
  ['meta.k8s.io/v1 PartialObjectMetadataList', decodePartialObjectMetadataList],
  ['v1 Status', decodeStatus],
  ['meta.k8s.io/v1 Status', decodeStatus],
]);

const schemas: ProtobufSchema[] = [];

/**
 * registerProtobufSchema adds the kinds of `schema` to those every `RestClient` decodes from
 * protobuf (@k/clientset registers the built-in kinds' before it asks for protobuf).
 */
export function registerProtobufSchema(schema: ProtobufSchema): void {
  if (!schemas.includes(schema)) schemas.push(schema);
}

/**
 * decodeProtobufObject decodes a protobuf object (the `k8s\0` prefix, a runtime.Unknown naming
 * its apiVersion and kind, the message) into what JSON.parse gives for the same object served as
 * JSON. Throws a `ProtoFormatError` for bytes that are not one, and for a kind it has no decoder
 * for.
 */
export function decodeProtobufObject(bytes: Buffer, options: ObjectMetaOptions = {}): unknown {
  const { apiVersion, kind, body } = readUnknown(bytes);
  const decoder = DECODERS.get(`${apiVersion} ${kind}`);
  if (decoder) return decoder(body, options);
  for (const schema of schemas) {
    const object = schema.decode(apiVersion, kind, body, options);
    if (object) return object;
  }
  throw new ProtoFormatError(
    `no protobuf decoder for ${JSON.stringify(apiVersion)} ${JSON.stringify(kind)}`,
  );
}

/**
 * decodeBookmarkObject decodes the object of a BOOKMARK watch event to its type and what a
 * bookmark carries: `metadata.resourceVersion` and `metadata.annotations` (the API promises
 * nothing else of it). It is decoded apart so the kind's own decoders only ever see whole
 * objects: the metadata-only Pod of the initial-events-end bookmark changed the object shapes
 * their optimized code was built for, and V8 threw that code away right after an informer's sync.
 */
export function decodeBookmarkObject(bytes: Buffer): unknown {
  const { apiVersion, kind, body } = readUnknown(bytes);
  let metadata: JsonObject = {};
  while (!body.done) {
    const field = body.key();
    // Field 1 is `metadata` in every top-level kind.
    if (field === (1 << 3) + 2) metadata = decodeBookmarkMeta(body.message());
    else body.skip(field & 7);
  }
  return { kind, apiVersion, metadata };
}

/** readUnknown reads the `k8s\0` prefix and the runtime.Unknown around a protobuf object. */
function readUnknown(bytes: Buffer): { apiVersion: string; kind: string; body: ProtoReader } {
  if (bytes.length < MAGIC.length || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new ProtoFormatError('the body does not start with the protobuf prefix "k8s\\0"');
  }
  const reader = new ProtoReader(bytes, MAGIC.length);
  let apiVersion = '';
  let kind = '';
  let raw: ProtoReader | undefined;
  let contentEncoding = '';
  while (!reader.done) {
    const key = reader.key();
    const number = key >>> 3;
    const wireType = key & 7;
    if (number === 1 && wireType === 2) {
      const typeMeta = reader.message();
      while (!typeMeta.done) {
        const typeKey = typeMeta.key();
        if (typeKey === (1 << 3) + 2) apiVersion = typeMeta.string();
        else if (typeKey === (2 << 3) + 2) kind = typeMeta.string();
        else typeMeta.skip(typeKey & 7);
      }
    } else if (number === 2 && wireType === 2) raw = reader.message();
    else if (number === 3 && wireType === 2) contentEncoding = reader.string();
    else reader.skip(wireType);
  }
  if (contentEncoding !== '') {
    throw new ProtoFormatError(`unsupported content encoding ${JSON.stringify(contentEncoding)}`);
  }
  return { apiVersion, kind, body: raw ?? new ProtoReader(bytes, bytes.length) };
}
