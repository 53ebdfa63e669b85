import { WatchDecodeError } from '../errors.js';
import {
  checkWatchEvent,
  DEFAULT_MAX_EVENT_BYTES,
  type DecodedWatchEvent,
  type WatchFrameDecoder,
} from '../watch/watch-decoder.js';
import { decodeBookmarkObject, decodeProtobufObject } from './protobuf-object.js';
import { ProtoFormatError, ProtoReader } from './proto-reader.js';

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
 * metav1.WatchEvent whose object is a protobuf object (see `decodeProtobufObject`; a BOOKMARK's
 * object is its type, resourceVersion and annotations, see `decodeBookmarkObject`). A frame is
 * decoded once it is complete; a malformed one, or one past `maxEventBytes`, throws a
 * `WatchDecodeError`. One decoder per stream; not for concurrent use.
 */
export class ProtobufWatchDecoder implements WatchFrameDecoder {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** #frameBytes is the size of the frame held in part (length prefix included), once known. */
  #frameBytes: number | undefined;
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
      // A frame larger than a chunk is joined once, when its last byte has come.
      const total = this.#pendingBytes + chunk.length;
      this.#pending.push(chunk);
      this.#pendingBytes = total;
      if (this.#frameBytes === undefined && total >= LENGTH_BYTES) {
        this.#frameBytes =
          LENGTH_BYTES + this.#checkedLength(Buffer.concat(this.#pending, LENGTH_BYTES), 0);
      }
      if (this.#frameBytes === undefined || total < this.#frameBytes) return [];
      buffer = Buffer.concat(this.#pending, total);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    this.#frameBytes = undefined;
    const events: DecodedWatchEvent[] = [];
    let start = 0;
    while (buffer.length - start >= LENGTH_BYTES) {
      const end = start + LENGTH_BYTES + this.#checkedLength(buffer, start);
      if (end > buffer.length) {
        this.#frameBytes = end - start;
        break;
      }
      events.push(this.#decodeFrame(buffer, start + LENGTH_BYTES, end));
      start = end;
    }
    if (start < buffer.length) {
      this.#pending.push(start === 0 ? buffer : buffer.subarray(start));
      this.#pendingBytes = buffer.length - start;
    }
    return events;
  }

  /** #checkedLength reads the length that starts a frame at `start`, within the size bound. */
  #checkedLength(buffer: Buffer, start: number): number {
    const length = buffer.readUInt32BE(start);
    if (length > this.#maxEventBytes) {
      throw new WatchDecodeError(
        `unable to decode an event from the watch stream: an event exceeds ${this.#maxEventBytes} bytes`,
      );
    }
    return length;
  }

  end(): { events: DecodedWatchEvent[]; incompleteBytes: number } {
    const incompleteBytes = this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#frameBytes = undefined;
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
            if (extensionKey !== (1 << 3) + 2) extension.skip(extensionKey & 7);
            // The type comes first (field 1): a bookmark's object is read apart.
            else if (type === 'BOOKMARK') object = decodeBookmarkObject(extension.bytesField());
            else {
              object = decodeProtobufObject(extension.bytesField(), {
                omitManagedFields: this.#omitManagedFields,
              });
            }
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
    checkWatchEvent(type, object);
    return { type, object } as DecodedWatchEvent;
  }
}
