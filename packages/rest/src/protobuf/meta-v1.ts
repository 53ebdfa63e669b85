import { ProtoFormatError, type ProtoReader } from './proto-reader.js';

// Decoders of the meta.k8s.io/v1 messages a metadata client receives (PartialObjectMetadata, its
// list, a watch's Status), field numbers from apimachinery's generated.proto. Each returns what
// JSON.parse gives for the same object served as JSON: the fields in the Go struct's order, and
// an empty or zero field left out where its JSON tag has `omitempty` (or `omitzero`), kept where
// it has not (an OwnerReference's four names, a Status's `metadata`).

/** JsonObject is a decoded object: what JSON.parse gives for the same object. */
export type JsonObject = Record<string, unknown>;

/** eachField runs `field` for each field of `reader`'s message, in the order sent. */
function eachField(reader: ProtoReader, field: (number: number, wireType: number) => void): void {
  while (!reader.done) {
    const key = reader.key();
    field(key >>> 3, key & 7);
  }
}

// Times already written, by second: objects of one list share most of theirs (creation, the
// conditions' transitions), and Date's formatting is the costliest step of decoding a time.
const TIMES = new Map<number, string>();
const TIMES_KEPT = 4096;

/** formatSeconds writes a Unix time as RFC 3339 in UTC with whole seconds (`…T12:00:00Z`). */
export function formatSeconds(seconds: number): string {
  let text = TIMES.get(seconds);
  if (text !== undefined) return text;
  const iso = new Date(seconds * 1000).toISOString();
  if (iso.length !== 24) throw new ProtoFormatError(`time ${seconds} s is out of range`);
  text = `${iso.slice(0, 19)}Z`;
  if (TIMES.size >= TIMES_KEPT) TIMES.clear();
  TIMES.set(seconds, text);
  return text;
}

/**
 * decodeTime reads a metav1.Time as its JSON form (RFC 3339 in UTC, whole seconds: nanoseconds
 * are neither sent as JSON nor read from protobuf by client-go), or undefined for the zero time,
 * which is sent as an empty message.
 */
export function decodeTime(reader: ProtoReader): string | undefined {
  if (reader.done) return undefined;
  let seconds = 0;
  while (!reader.done) {
    const key = reader.key();
    if (key === 1 << 3) seconds = reader.int64();
    else reader.skip(key & 7);
  }
  return formatSeconds(seconds);
}

/** decodeMapEntry reads one entry of a `map<string, string>` into `map`. */
function decodeMapEntry(reader: ProtoReader, map: Record<string, string>): void {
  let key = '';
  let value = '';
  eachField(reader, (number, wireType) => {
    if (number === 1 && wireType === 2) key = reader.string();
    else if (number === 2 && wireType === 2) value = reader.string();
    else reader.skip(wireType);
  });
  map[key] = value;
}

function decodeOwnerReference(reader: ProtoReader): JsonObject {
  let apiVersion = '';
  let kind = '';
  let name = '';
  let uid = '';
  let controller: boolean | undefined;
  let blockOwnerDeletion: boolean | undefined;
  eachField(reader, (number, wireType) => {
    if (number === 5 && wireType === 2) apiVersion = reader.string();
    else if (number === 1 && wireType === 2) kind = reader.string();
    else if (number === 3 && wireType === 2) name = reader.string();
    else if (number === 4 && wireType === 2) uid = reader.string();
    else if (number === 6 && wireType === 0) controller = reader.bool();
    else if (number === 7 && wireType === 0) blockOwnerDeletion = reader.bool();
    else reader.skip(wireType);
  });
  const reference: JsonObject = { apiVersion, kind, name, uid };
  if (controller !== undefined) reference.controller = controller;
  if (blockOwnerDeletion !== undefined) reference.blockOwnerDeletion = blockOwnerDeletion;
  return reference;
}

function decodeManagedFieldsEntry(reader: ProtoReader): JsonObject {
  let time: string | undefined;
  let timeSet = false;
  let fieldsV1: unknown;
  let manager = '';
  let operation = '';
  let apiVersion = '';
  let fieldsType = '';
  let subresource = '';
  eachField(reader, (number, wireType) => {
    if (number === 1 && wireType === 2) manager = reader.string();
    else if (number === 2 && wireType === 2) operation = reader.string();
    else if (number === 3 && wireType === 2) apiVersion = reader.string();
    else if (number === 4 && wireType === 2) {
      time = decodeTime(reader.message());
      timeSet = true;
    } else if (number === 6 && wireType === 2) fieldsType = reader.string();
    else if (number === 7 && wireType === 2)
      fieldsV1 = decodeRawJson(reader.message(), "a managedFields entry's fieldsV1");
    else if (number === 8 && wireType === 2) subresource = reader.string();
    else reader.skip(wireType);
  });
  const entry: JsonObject = {};
  if (manager) entry.manager = manager;
  if (operation) entry.operation = operation;
  if (apiVersion) entry.apiVersion = apiVersion;
  // A pointer: present means sent, the zero time included (JSON writes it as null).
  if (timeSet) entry.time = time ?? null;
  if (fieldsType) entry.fieldsType = fieldsType;
  if (fieldsV1 !== undefined) entry.fieldsV1 = fieldsV1;
  if (subresource) entry.subresource = subresource;
  return entry;
}

/**
 * decodeRawJson reads a message whose `raw` bytes (field 1) are JSON shown inline: a FieldsV1, a
 * RawExtension. Empty is `null`; bytes that are not JSON fail naming `what`.
 */
export function decodeRawJson(reader: ProtoReader, what: string): unknown {
  let raw: Buffer | undefined;
  while (!reader.done) {
    const key = reader.key();
    if (key === (1 << 3) + 2) raw = reader.bytesField();
    else reader.skip(key & 7);
  }
  if (raw === undefined || raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new ProtoFormatError(`${what} holds raw bytes that are not JSON`);
  }
}

/** ObjectMetaOptions tune {@link decodeObjectMeta}. */
export interface ObjectMetaOptions {
  /** omitManagedFields skips `managedFields` without decoding it. */
  omitManagedFields?: boolean;
}

/** decodeObjectMeta reads a metav1.ObjectMeta. */
export function decodeObjectMeta(reader: ProtoReader, options: ObjectMetaOptions = {}): JsonObject {
  let name = '';
  let generateName = '';
  let namespace = '';
  let selfLink = '';
  let uid = '';
  let resourceVersion = '';
  let generation = 0;
  let creationTimestamp: string | undefined;
  let deletionTimestamp: string | null | undefined;
  let deletionGracePeriodSeconds: number | undefined;
  let labels: Record<string, string> | undefined;
  let annotations: Record<string, string> | undefined;
  let ownerReferences: JsonObject[] | undefined;
  let finalizers: string[] | undefined;
  let managedFields: JsonObject[] | undefined;
  eachField(reader, (number, wireType) => {
    if (wireType === 2) {
      if (number === 1) name = reader.string();
      else if (number === 2) generateName = reader.string();
      else if (number === 3) namespace = reader.string();
      else if (number === 4) selfLink = reader.string();
      else if (number === 5) uid = reader.string();
      else if (number === 6) resourceVersion = reader.string();
      else if (number === 8) creationTimestamp = decodeTime(reader.message());
      else if (number === 9) deletionTimestamp = decodeTime(reader.message()) ?? null;
      else if (number === 11) decodeMapEntry(reader.message(), (labels ??= {}));
      else if (number === 12) decodeMapEntry(reader.message(), (annotations ??= {}));
      else if (number === 13) (ownerReferences ??= []).push(decodeOwnerReference(reader.message()));
      else if (number === 14) (finalizers ??= []).push(reader.string());
      else if (number === 17 && !options.omitManagedFields) {
        (managedFields ??= []).push(decodeManagedFieldsEntry(reader.message()));
      } else reader.skip(wireType);
    } else if (wireType === 0 && number === 7) generation = reader.int64();
    else if (wireType === 0 && number === 10) deletionGracePeriodSeconds = reader.int64();
    else reader.skip(wireType);
  });
  const meta: JsonObject = {};
  if (name) meta.name = name;
  if (generateName) meta.generateName = generateName;
  if (namespace) meta.namespace = namespace;
  if (selfLink) meta.selfLink = selfLink;
  if (uid) meta.uid = uid;
  if (resourceVersion) meta.resourceVersion = resourceVersion;
  if (generation !== 0) meta.generation = generation;
  if (creationTimestamp !== undefined) meta.creationTimestamp = creationTimestamp;
  if (deletionTimestamp !== undefined) meta.deletionTimestamp = deletionTimestamp;
  if (deletionGracePeriodSeconds !== undefined) {
    meta.deletionGracePeriodSeconds = deletionGracePeriodSeconds;
  }
  if (labels) meta.labels = labels;
  if (annotations) meta.annotations = annotations;
  if (ownerReferences) meta.ownerReferences = ownerReferences;
  if (finalizers) meta.finalizers = finalizers;
  if (managedFields) meta.managedFields = managedFields;
  return meta;
}

/** decodeListMeta reads a metav1.ListMeta. */
export function decodeListMeta(reader: ProtoReader): JsonObject {
  let selfLink = '';
  let resourceVersion = '';
  let continueToken = '';
  let remainingItemCount: number | undefined;
  let shardInfo: JsonObject | undefined;
  eachField(reader, (number, wireType) => {
    if (number === 1 && wireType === 2) selfLink = reader.string();
    else if (number === 2 && wireType === 2) resourceVersion = reader.string();
    else if (number === 3 && wireType === 2) continueToken = reader.string();
    else if (number === 4 && wireType === 0) remainingItemCount = reader.int64();
    else if (number === 5 && wireType === 2) shardInfo = decodeShardInfo(reader.message());
    else reader.skip(wireType);
  });
  const meta: JsonObject = {};
  if (selfLink) meta.selfLink = selfLink;
  if (resourceVersion) meta.resourceVersion = resourceVersion;
  if (continueToken) meta.continue = continueToken;
  if (remainingItemCount !== undefined) meta.remainingItemCount = remainingItemCount;
  if (shardInfo) meta.shardInfo = shardInfo;
  return meta;
}

function decodeShardInfo(reader: ProtoReader): JsonObject {
  let selector = '';
  eachField(reader, (number, wireType) => {
    if (number === 1 && wireType === 2) selector = reader.string();
    else reader.skip(wireType);
  });
  return { selector };
}

/** decodePartialObjectMetadata reads a PartialObjectMetadata with its type (as JSON has it). */
export function decodePartialObjectMetadata(
  reader: ProtoReader,
  options: ObjectMetaOptions = {},
): JsonObject {
  let metadata: JsonObject = {};
  eachField(reader, (number, wireType) => {
    if (number === 1 && wireType === 2) metadata = decodeObjectMeta(reader.message(), options);
    else reader.skip(wireType);
  });
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata };
}

/** decodePartialObjectMetadataList reads a PartialObjectMetadataList with its items' types. */
export function decodePartialObjectMetadataList(
  reader: ProtoReader,
  options: ObjectMetaOptions = {},
): JsonObject {
  let metadata: JsonObject = {};
  const items: JsonObject[] = [];
  eachField(reader, (number, wireType) => {
    if (number === 1 && wireType === 2) metadata = decodeListMeta(reader.message());
    else if (number === 2 && wireType === 2) {
      items.push(decodePartialObjectMetadata(reader.message(), options));
    } else reader.skip(wireType);
  });
  return { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata, items };
}

/** decodeStatus reads a metav1.Status (kind and apiVersion as JSON has them). */
export function decodeStatus(reader: ProtoReader): JsonObject {
  let metadata: JsonObject = {};
  let status = '';
  let message = '';
  let reason = '';
  let details: JsonObject | undefined;
  let code = 0;
  eachField(reader, (number, wireType) => {
    if (number === 1 && wireType === 2) metadata = decodeListMeta(reader.message());
    else if (number === 2 && wireType === 2) status = reader.string();
    else if (number === 3 && wireType === 2) message = reader.string();
    else if (number === 4 && wireType === 2) reason = reader.string();
    else if (number === 5 && wireType === 2) details = decodeStatusDetails(reader.message());
    else if (number === 6 && wireType === 0) code = reader.int32();
    else reader.skip(wireType);
  });
  const decoded: JsonObject = { kind: 'Status', apiVersion: 'v1', metadata };
  if (status) decoded.status = status;
  if (message) decoded.message = message;
  if (reason) decoded.reason = reason;
  if (details) decoded.details = details;
  if (code !== 0) decoded.code = code;
  return decoded;
}

function decodeStatusDetails(reader: ProtoReader): JsonObject {
  let name = '';
  let group = '';
  let kind = '';
  let uid = '';
  let causes: JsonObject[] | undefined;
  let retryAfterSeconds = 0;
  eachField(reader, (number, wireType) => {
    if (number === 1 && wireType === 2) name = reader.string();
    else if (number === 2 && wireType === 2) group = reader.string();
    else if (number === 3 && wireType === 2) kind = reader.string();
    else if (number === 6 && wireType === 2) uid = reader.string();
    else if (number === 4 && wireType === 2) {
      (causes ??= []).push(decodeStatusCause(reader.message()));
    } else if (number === 5 && wireType === 0) retryAfterSeconds = reader.int32();
    else reader.skip(wireType);
  });
  const details: JsonObject = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (kind) details.kind = kind;
  if (uid) details.uid = uid;
  if (causes) details.causes = causes;
  if (retryAfterSeconds !== 0) details.retryAfterSeconds = retryAfterSeconds;
  return details;
}

function decodeStatusCause(reader: ProtoReader): JsonObject {
  let reason = '';
  let message = '';
  let field = '';
  eachField(reader, (number, wireType) => {
    if (number === 1 && wireType === 2) reason = reader.string();
    else if (number === 2 && wireType === 2) message = reader.string();
    else if (number === 3 && wireType === 2) field = reader.string();
    else reader.skip(wireType);
  });
  const cause: JsonObject = {};
  if (reason) cause.reason = reason;
  if (message) cause.message = message;
  if (field) cause.field = field;
  return cause;
}
