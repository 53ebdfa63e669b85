import { WatchDecodeError } from '../errors.js';
import { isStatus, type Status } from '../status.js';
import { managedFieldsMember } from './managed-fields-member.js';

/** DecodedWatchEvent is one frame of a watch stream: a change, a bookmark, or an ERROR Status. */
export type DecodedWatchEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: unknown }
  | { type: 'ERROR'; object: Status };

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);
const NEWLINE = 0x0a;

/** DEFAULT_MAX_EVENT_BYTES bounds one buffered, incomplete event (64 MiB), whatever the encoding. */
export const DEFAULT_MAX_EVENT_BYTES = 64 * 1024 * 1024;

const LEFT_BRACE = 0x7b;

function isBlankText(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0d) return false;
  }
  return true;
}

function isBlank(buffer: Buffer, start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) {
    const byte = buffer[index];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== NEWLINE) return false;
  }
  return true;
}

/**
 * WatchFrameDecoder turns a watch response's bytes into events as they arrive, whatever the
 * encoding: {@link WatchDecoder} for JSON lines, `ProtobufWatchDecoder` for protobuf frames.
 */
export interface WatchFrameDecoder {
  /** bufferedBytes is the size of the incomplete event held so far. */
  readonly bufferedBytes: number;
  /** push decodes every event completed by `chunk`, in order. */
  push(chunk: Buffer): DecodedWatchEvent[];
  /** end takes what is left when the stream ends: a last event, or the size of a cut one. */
  end(): { events: DecodedWatchEvent[]; incompleteBytes: number };
}

/** WatchDecoderOptions configure a {@link WatchDecoder}. */
export interface WatchDecoderOptions {
  /** maxEventBytes bounds one buffered, incomplete event (default 64 MiB). */
  maxEventBytes?: number;
  /** omitManagedFields cuts `object.metadata.managedFields` from each line before it is parsed. */
  omitManagedFields?: boolean;
}

/**
 * WatchDecoder turns the bytes of a watch response into events as they arrive. The API server
 * writes one JSON object `{"type": …, "object": …}` per line; the decoder keeps an incomplete
 * line until its newline comes and parses each complete line once with `JSON.parse`. With
 * `omitManagedFields`, the bytes of `object.metadata.managedFields` are skipped, never parsed
 * (often half of an object, see {@link managedFieldsMember}). An unknown type throws
 * client-go's `got invalid watch event type: <t>`, bad JSON a `WatchDecodeError`. One decoder
 * per stream; not for concurrent use.
 */
export class WatchDecoder implements WatchFrameDecoder {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  readonly #maxEventBytes: number;
  readonly #omitManagedFields: boolean;

  constructor(options: WatchDecoderOptions = {}) {
    this.#maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.#omitManagedFields = options.omitManagedFields ?? false;
  }

  /** bufferedBytes is the size of the incomplete event held so far. */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /** push decodes every event completed by `chunk`, in order. */
  push(chunk: Buffer): DecodedWatchEvent[] {
    if (this.#omitManagedFields) return this.#pushCutting(chunk);
    // The complete lines are decoded to text at once and split there: one UTF-8 decode per
    // chunk, not one per event (a newline byte always ends a UTF-8 character).
    const events: DecodedWatchEvent[] = [];
    const last = chunk.lastIndexOf(NEWLINE);
    if (last !== -1) {
      let text: string;
      if (this.#pendingBytes > 0) {
        this.#pending.push(chunk.subarray(0, last));
        text = Buffer.concat(this.#pending, this.#pendingBytes + last).toString('utf8');
        this.#pending = [];
        this.#pendingBytes = 0;
      } else {
        text = chunk.toString('utf8', 0, last);
      }
      let start = 0;
      for (;;) {
        const newline = text.indexOf('\n', start);
        const end = newline === -1 ? text.length : newline;
        if (text.charCodeAt(start) === LEFT_BRACE || !isBlankText(text, start, end)) {
          events.push(decodeFrame(text.slice(start, end)));
        }
        if (newline === -1) break;
        start = newline + 1;
      }
    }
    if (last + 1 < chunk.length) this.#hold(last === -1 ? chunk : chunk.subarray(last + 1));
    return events;
  }

  /** #pushCutting is push for `omitManagedFields`: each line is cut in its bytes, then decoded. */
  #pushCutting(chunk: Buffer): DecodedWatchEvent[] {
    const events: DecodedWatchEvent[] = [];
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    if (newline !== -1 && this.#pendingBytes > 0) {
      this.#pending.push(chunk.subarray(0, newline));
      const line = Buffer.concat(this.#pending, this.#pendingBytes + newline);
      this.#pending = [];
      this.#pendingBytes = 0;
      if (!isBlank(line, 0, line.length)) events.push(this.#decodeLine(line, 0, line.length));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    while (newline !== -1) {
      if (!isBlank(chunk, start, newline)) events.push(this.#decodeLine(chunk, start, newline));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.#hold(start === 0 ? chunk : chunk.subarray(start));
    return events;
  }

  /** #hold keeps the start of an incomplete event, within the bound. */
  #hold(piece: Buffer): void {
    this.#pending.push(piece);
    this.#pendingBytes += piece.length;
    if (this.#pendingBytes > this.#maxEventBytes) {
      throw new WatchDecodeError(
        `unable to decode an event from the watch stream: an event exceeds ${this.#maxEventBytes} bytes`,
      );
    }
  }

  /**
   * end is called when the stream ends. A last event without its newline is decoded; what is
   * left is returned as the number of bytes of an incomplete event (0 when the stream ended
   * cleanly between events).
   */
  end(): { events: DecodedWatchEvent[]; incompleteBytes: number } {
    if (this.#pendingBytes === 0) return { events: [], incompleteBytes: 0 };
    const line = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    if (isBlank(line, 0, line.length)) return { events: [], incompleteBytes: 0 };
    try {
      return { events: [this.#decodeLine(line, 0, line.length)], incompleteBytes: 0 };
    } catch {
      return { events: [], incompleteBytes: line.length };
    }
  }

  #decodeLine(buffer: Buffer, start: number, end: number): DecodedWatchEvent {
    return decodeFrame(
      this.#omitManagedFields
        ? textWithout(buffer, start, end)
        : buffer.toString('utf8', start, end),
    );
  }
}

// Lines up to this size are joined around the cut in one reused buffer, so cutting managedFields
// costs one string, not three (two pieces and their join, which JSON.parse would copy again).
const MAX_SCRATCH_BYTES = 1024 * 1024;
let scratch = Buffer.allocUnsafe(0);

/** textWithout is the line's text without `object.metadata.managedFields` (cut at ASCII bytes). */
function textWithout(buffer: Buffer, start: number, end: number): string {
  const cut = managedFieldsMember(buffer, start, end);
  if (!cut) return buffer.toString('utf8', start, end);
  const head = cut[0] - start;
  const length = head + end - cut[1];
  if (length > MAX_SCRATCH_BYTES) {
    return buffer.toString('utf8', start, cut[0]) + buffer.toString('utf8', cut[1], end);
  }
  if (scratch.length < length) {
    scratch = Buffer.allocUnsafe(Math.min(MAX_SCRATCH_BYTES, Math.max(length, 2 * scratch.length)));
  }
  buffer.copy(scratch, 0, start, cut[0]);
  buffer.copy(scratch, head, cut[1], end);
  return scratch.toString('utf8', 0, length);
}

function decodeFrame(text: string): DecodedWatchEvent {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch (error) {
    throw new WatchDecodeError(
      `unable to decode an event from the watch stream: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
    throw new WatchDecodeError('unable to decode an event from the watch stream: not an object');
  }
  const { type, object } = frame as { type?: unknown; object?: unknown };
  checkWatchEvent(type, object);
  return frame as DecodedWatchEvent;
}

/**
 * checkWatchEvent fails with a `WatchDecodeError` unless `type` is a watch event type and `object`
 * an object (a Status for ERROR), what every decoder of a watch stream checks of a frame.
 */
export function checkWatchEvent(type: unknown, object: unknown): void {
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) {
    throw new WatchDecodeError(`got invalid watch event type: ${String(type)}`);
  }
  if (typeof object !== 'object' || object === null) {
    throw new WatchDecodeError(
      `unable to decode an event from the watch stream: ${type} event has no object`,
    );
  }
  // An ERROR carries a Status; one with mistyped fields would make the error predicates lie.
  if (type === 'ERROR' && !isStatus({ ...object, kind: 'Status' })) {
    throw new WatchDecodeError(
      'unable to decode an event from the watch stream: ERROR event object is not a Status',
    );
  }
}
