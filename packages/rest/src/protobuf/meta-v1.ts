import { ProtoFormatError, type ProtoReader } from './proto-reader.js';

// Decoders of the meta.k8s.io/v1 messages a metadata client receives (PartialObjectMetadata, its
// list, a watch's Status), field numbers from apimachinery's generated.proto. Each returns what
// JSON.parse gives for the same object served as JSON: the fields in the Go struct's order, and
// an empty or zero field left out where its JSON tag has `omitempty` (or `omitzero`), kept where
// it has not (an OwnerReference's four names, a Status's `metadata`).

/** JsonObject is a decoded object: what JSON.parse gives for the same object. */
export type JsonObject = Record<string, unknown>;

// Each decoder reads its fields in a plain loop over the keys (field number << 3 | wire type):
// they run for every object of a list, and a callback per field cost a closure per message.

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

/**
 * setEntry sets `map[key]` to `value` as an own, enumerable property, as JSON.parse does: for the
 * key `__proto__` (a legal ConfigMap, Secret, label or annotation key) an assignment would set the
 * object's prototype instead, or do nothing for a string, and a get-then-update would delete it.
 */
export function setEntry(map: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(map, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else map[key] = value;
}

/** readMapEntry reads one embedded entry of a `map<string, string>` into `map`. */
function readMapEntry(reader: ProtoReader, map: Record<string, string>): void {
  const end = reader.embeddedEnd();
  let key = '';
  let value = '';
  while (reader.position < end) {
    const field = reader.key();
    if (field === (1 << 3) + 2) key = reader.string();
    else if (field === (2 << 3) + 2) value = reader.string();
    else reader.skip(field & 7);
  }
  reader.endEmbedded(end);
  setEntry(map, key, value);
}

/** readOwnerReference reads one embedded metav1.OwnerReference. */
function readOwnerReference(reader: ProtoReader): JsonObject {
  const end = reader.embeddedEnd();
  let apiVersion = '';
  let kind = '';
  let name = '';
  let uid = '';
  let controller: boolean | undefined;
  let blockOwnerDeletion: boolean | undefined;
  while (reader.position < end) {
    const field = reader.key();
    if (field === (5 << 3) + 2) apiVersion = reader.string();
    else if (field === (1 << 3) + 2) kind = reader.string();
    else if (field === (3 << 3) + 2) name = reader.string();
    else if (field === (4 << 3) + 2) uid = reader.string();
    else if (field === 6 << 3) controller = reader.bool();
    else if (field === 7 << 3) blockOwnerDeletion = reader.bool();
    else reader.skip(field & 7);
  }
  reader.endEmbedded(end);
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
  while (!reader.done) {
    const field = reader.key();
    if (field === (1 << 3) + 2) manager = reader.string();
    else if (field === (2 << 3) + 2) operation = reader.string();
    else if (field === (3 << 3) + 2) apiVersion = reader.string();
    else if (field === (4 << 3) + 2) {
      time = decodeTime(reader.message());
      timeSet = true;
    } else if (field === (6 << 3) + 2) fieldsType = reader.string();
    else if (field === (7 << 3) + 2) {
      fieldsV1 = decodeRawJson(reader.message(), "a managedFields entry's fieldsV1");
    } else if (field === (8 << 3) + 2) subresource = reader.string();
    else reader.skip(field & 7);
  }
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
  omitManagedFields?: boolean | undefined;
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
  const omitManagedFields = options.omitManagedFields === true;
  while (!reader.done) {
    const field = reader.key();
    switch (field) {
      case (1 << 3) + 2:
        name = reader.string();
        break;
      case (2 << 3) + 2:
        generateName = reader.string();
        break;
      case (3 << 3) + 2:
        namespace = reader.string();
        break;
      case (4 << 3) + 2:
        selfLink = reader.string();
        break;
      case (5 << 3) + 2:
        uid = reader.string();
        break;
      case (6 << 3) + 2:
        resourceVersion = reader.string();
        break;
      case 7 << 3:
        generation = reader.int64();
        break;
      case (8 << 3) + 2:
        creationTimestamp = decodeTime(reader.message());
        break;
      case (9 << 3) + 2:
        deletionTimestamp = decodeTime(reader.message()) ?? null;
        break;
      case 10 << 3:
        deletionGracePeriodSeconds = reader.int64();
        break;
      case (11 << 3) + 2:
        readMapEntry(reader, (labels ??= {}));
        break;
      case (12 << 3) + 2:
        readMapEntry(reader, (annotations ??= {}));
        break;
      case (13 << 3) + 2:
        (ownerReferences ??= []).push(readOwnerReference(reader));
        break;
      case (14 << 3) + 2:
        (finalizers ??= []).push(reader.string());
        break;
      case (17 << 3) + 2:
        if (omitManagedFields) reader.skip(2);
        else (managedFields ??= []).push(decodeManagedFieldsEntry(reader.message()));
        break;
      default:
        reader.skip(field & 7);
    }
  }
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

/**
 * decodeBookmarkMeta reads what a bookmark's metav1.ObjectMeta carries: `resourceVersion` and
 * `annotations` (`k8s.io/initial-events-end`), skipping anything else.
 */
export function decodeBookmarkMeta(reader: ProtoReader): JsonObject {
  let resourceVersion = '';
  let annotations: Record<string, string> | undefined;
  while (!reader.done) {
    const field = reader.key();
    if (field === (6 << 3) + 2) resourceVersion = reader.string();
    else if (field === (12 << 3) + 2) readMapEntry(reader, (annotations ??= {}));
    else reader.skip(field & 7);
  }
  const meta: JsonObject = {};
  if (resourceVersion) meta.resourceVersion = resourceVersion;
  if (annotations) meta.annotations = annotations;
  return meta;
}

/** decodeListMeta reads a metav1.ListMeta. */
export function decodeListMeta(reader: ProtoReader): JsonObject {
  let selfLink = '';
  let resourceVersion = '';
  let continueToken = '';
  let remainingItemCount: number | undefined;
  let shardInfo: JsonObject | undefined;
  while (!reader.done) {
    const field = reader.key();
    if (field === (1 << 3) + 2) selfLink = reader.string();
    else if (field === (2 << 3) + 2) resourceVersion = reader.string();
    else if (field === (3 << 3) + 2) continueToken = reader.string();
    else if (field === 4 << 3) remainingItemCount = reader.int64();
    else if (field === (5 << 3) + 2) shardInfo = decodeShardInfo(reader.message());
    else reader.skip(field & 7);
  }
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
  while (!reader.done) {
    const field = reader.key();
    if (field === (1 << 3) + 2) selector = reader.string();
    else reader.skip(field & 7);
  }
  return { selector };
}

/** decodePartialObjectMetadata reads a PartialObjectMetadata with its type (as JSON has it). */
export function decodePartialObjectMetadata(
  reader: ProtoReader,
  options: ObjectMetaOptions = {},
): JsonObject {
  let metadata: JsonObject = {};
  while (!reader.done) {
    const field = reader.key();
    if (field === (1 << 3) + 2) metadata = decodeObjectMeta(reader.message(), options);
    else reader.skip(field & 7);
  }
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata };
}

/** decodePartialObjectMetadataList reads a PartialObjectMetadataList with its items' types. */
export function decodePartialObjectMetadataList(
  reader: ProtoReader,
  options: ObjectMetaOptions = {},
): JsonObject {
  let metadata: JsonObject = {};
  const items: JsonObject[] = [];
  while (!reader.done) {
    const field = reader.key();
    if (field === (1 << 3) + 2) metadata = decodeListMeta(reader.message());
    else if (field === (2 << 3) + 2) {
      items.push(decodePartialObjectMetadata(reader.message(), options));
    } else reader.skip(field & 7);
  }
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
  while (!reader.done) {
    const field = reader.key();
    if (field === (1 << 3) + 2) metadata = decodeListMeta(reader.message());
    else if (field === (2 << 3) + 2) status = reader.string();
    else if (field === (3 << 3) + 2) message = reader.string();
    else if (field === (4 << 3) + 2) reason = reader.string();
    else if (field === (5 << 3) + 2) details = decodeStatusDetails(reader.message());
    else if (field === 6 << 3) code = reader.int32();
    else reader.skip(field & 7);
  }
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
  while (!reader.done) {
    const field = reader.key();
    if (field === (1 << 3) + 2) name = reader.string();
    else if (field === (2 << 3) + 2) group = reader.string();
    else if (field === (3 << 3) + 2) kind = reader.string();
    else if (field === (6 << 3) + 2) uid = reader.string();
    else if (field === (4 << 3) + 2) {
      (causes ??= []).push(decodeStatusCause(reader.message()));
    } else if (field === 5 << 3) retryAfterSeconds = reader.int32();
    else reader.skip(field & 7);
  }
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
  while (!reader.done) {
    const key = reader.key();
    if (key === (1 << 3) + 2) reason = reader.string();
    else if (key === (2 << 3) + 2) message = reader.string();
    else if (key === (3 << 3) + 2) field = reader.string();
    else reader.skip(key & 7);
  }
  const cause: JsonObject = {};
  if (reason) cause.reason = reason;
  if (message) cause.message = message;
  if (field) cause.field = field;
  return cause;
}
