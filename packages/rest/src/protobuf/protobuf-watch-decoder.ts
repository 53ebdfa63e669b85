import { WatchDecodeError } from '../errors.js';
import { isStatus } from '../status.js';
import type { DecodedWatchEvent, WatchFrameDecoder } from '../watch/watch-decoder.js';
import { decodeProtobufObject } from './protobuf-object.js';
import { ProtoFormatError, ProtoReader } from './proto-reader.js';

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
/** DEFAULT_MAX_EVENT_BYTES bounds one event (64 MiB), as for JSON watches. */
const DEFAULT_MAX_EVENT_BYTES = 64 * 1024 * 1024;
const LENGTH_BYTES = 4;

/** ProtobufWatchDecoderOptions configure a {@link ProtobufWatchDecoder}. */
interface ProtobufWatchDecoderOptions {
  maxEventBytes?: number;
  /** omitManagedFields skips each object's `metadata.managedFields` without decoding it. */
  omitManagedFields?: boolean;
}

/**
 * ProtobufWatchDecoder turns the bytes of a protobuf watch (`application/vnd.kubernetes.protobuf;
 * stream=watch`) into events as they arrive: each frame is a 4-byte big-endian length and a
 * metav1.WatchEvent whose object is a protobuf object (see `decodeProtobufObject`). A frame is
 * decoded once it is complete; a malformed one, or one past `maxEventBytes`, throws a
 * `WatchDecodeError`. One decoder per stream; not for concurrent use.
 */
export class ProtobufWatchDecoder implements WatchFrameDecoder {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  readonly #maxEventBytes: number;
  readonly #omitManagedFields: boolean;

  constructor(options: ProtobufWatchDecoderOptions = {}) {
    this.#maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.#omitManagedFields = options.omitManagedFields ?? false;
  }

  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  push(chunk: Buffer): DecodedWatchEvent[] {
    let buffer = chunk;
    if (this.#pendingBytes > 0) {
      this.#pending.push(chunk);
      buffer = Buffer.concat(this.#pending, this.#pendingBytes + chunk.length);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    const events: DecodedWatchEvent[] = [];
    let start = 0;
    while (buffer.length - start >= LENGTH_BYTES) {
      const length = buffer.readUInt32BE(start);
      if (length > this.#maxEventBytes) {
        throw new WatchDecodeError(
          `unable to decode an event from the watch stream: an event exceeds ${this.#maxEventBytes} bytes`,
        );
      }
      const end = start + LENGTH_BYTES + length;
      if (end > buffer.length) break;
      events.push(this.#decodeFrame(buffer, start + LENGTH_BYTES, end));
      start = end;
    }
    if (start < buffer.length) {
      this.#pending.push(start === 0 ? buffer : buffer.subarray(start));
      this.#pendingBytes = buffer.length - start;
    }
    return events;
  }

  end(): { events: DecodedWatchEvent[]; incompleteBytes: number } {
    const incompleteBytes = this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    return { events: [], incompleteBytes };
  }

  #decodeFrame(buffer: Buffer, start: number, end: number): DecodedWatchEvent {
    let type = '';
    let object: unknown;
    try {
      const reader = new ProtoReader(buffer, start, end);
      while (!reader.done) {
        const key = reader.key();
        if (key === (1 << 3) + 2) type = reader.string();
        else if (key === (2 << 3) + 2) {
          // RawExtension: its `raw` (field 1) is the protobuf object.
          const extension = reader.message();
          while (!extension.done) {
            const extensionKey = extension.key();
            if (extensionKey === (1 << 3) + 2) {
              object = decodeProtobufObject(extension.bytesField(), {
                omitManagedFields: this.#omitManagedFields,
              });
            } else extension.skip(extensionKey & 7);
          }
        } else reader.skip(key & 7);
      }
    } catch (error) {
      if (!(error instanceof ProtoFormatError)) throw error;
      throw new WatchDecodeError(
        `unable to decode an event from the watch stream: ${error.message}`,
        {
          cause: error,
        },
      );
    }
    if (!EVENT_TYPES.has(type)) throw new WatchDecodeError(`got invalid watch event type: ${type}`);
    if (typeof object !== 'object' || object === null) {
      throw new WatchDecodeError(
        `unable to decode an event from the watch stream: ${type} event has no object`,
      );
    }
    if (type === 'ERROR' && !isStatus(object)) {
      throw new WatchDecodeError(
        'unable to decode an event from the watch stream: ERROR event object is not a Status',
      );
    }
    return { type, object } as DecodedWatchEvent;
  }
}
