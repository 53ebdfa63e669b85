import { randomFillSync } from 'node:crypto';

/** The RFC 6455 opcodes a client handles. */
export const OPCODE = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

/** WebSocketFrame is one parsed frame from the server (payload unmasked). */
export interface WebSocketFrame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** FrameProtocolError is a frame the parser refuses; `closeCode` is what to close with. */
export class FrameProtocolError extends Error {
  readonly closeCode: number;

  constructor(message: string, closeCode: number) {
    super(message);
    this.closeCode = closeCode;
  }
}

const EMPTY = Buffer.alloc(0);

// Mask keys are cut from one random pool: a getrandom call per frame costs more than the frame.
const MASK_POOL_SIZE = 4096;
let maskPool = Buffer.alloc(0);
let maskOffset = MASK_POOL_SIZE;

function nextMaskKey(): Buffer {
  if (maskOffset >= MASK_POOL_SIZE) {
    maskPool = randomFillSync(Buffer.allocUnsafe(MASK_POOL_SIZE));
    maskOffset = 0;
  }
  const key = maskPool.subarray(maskOffset, maskOffset + 4);
  maskOffset += 4;
  return key;
}

/** maskInPlace XORs `data` with the 4-byte `key` (masking and unmasking are the same). */
function maskInPlace(data: Buffer, key: Buffer): void {
  const length = data.length;
  const k0 = key[0] ?? 0;
  const k1 = key[1] ?? 0;
  const k2 = key[2] ?? 0;
  const k3 = key[3] ?? 0;
  let index = 0;
  // Four bytes a step; the byte-wise tail handles what is left.
  for (; index + 4 <= length; index += 4) {
    data[index] = (data[index] ?? 0) ^ k0;
    data[index + 1] = (data[index + 1] ?? 0) ^ k1;
    data[index + 2] = (data[index + 2] ?? 0) ^ k2;
    data[index + 3] = (data[index + 3] ?? 0) ^ k3;
  }
  for (; index < length; index += 1) data[index] = (data[index] ?? 0) ^ (key[index & 3] ?? 0);
}

/**
 * encodeFrame builds one final client frame: masked with a fresh random key (RFC 6455 §5.3
 * requires every client frame to be masked), the payload given as parts that are copied into the
 * frame, so the caller's buffers are never changed.
 */
export function encodeFrame(opcode: number, parts: readonly Uint8Array[]): Buffer {
  let length = 0;
  for (const part of parts) length += part.length;
  const headerLength = length < 126 ? 6 : length < 65536 ? 8 : 14;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x80 | opcode;
  if (length < 126) {
    frame[1] = 0x80 | length;
  } else if (length < 65536) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  const key = nextMaskKey();
  key.copy(frame, headerLength - 4);
  let offset = headerLength;
  for (const part of parts) {
    frame.set(part, offset);
    offset += part.length;
  }
  maskInPlace(frame.subarray(headerLength), key);
  return frame;
}

/** FrameParserOptions configure a {@link FrameParser}. */
export interface FrameParserOptions {
  /**
   * masked is true where the frames come from a client, which masks every frame (a test's
   * server); by default they come from a server, which must not mask any (RFC 6455 §5.1).
   */
  masked?: boolean;
}

/**
 * FrameParser cuts the bytes from the server into frames, however they are split across reads.
 * It checks what RFC 6455 requires of a server's frames (not masked, no reserved bits without an
 * extension, no unknown opcode, control frames final and at most 125 bytes) and bounds a frame's
 * payload.
 */
export class FrameParser {
  readonly #maxPayloadBytes: number;
  readonly #masked: boolean;
  /** #chunks are the reads not yet parsed; the first one from #offset on. */
  #chunks: Buffer[] = [];
  #offset = 0;
  /** #buffered is the number of bytes not yet parsed. */
  #buffered = 0;

  constructor(maxPayloadBytes: number, options: FrameParserOptions = {}) {
    this.#maxPayloadBytes = maxPayloadBytes;
    this.#masked = options.masked ?? false;
  }

  /** push adds bytes and returns the frames they complete (throws {@link FrameProtocolError}). */
  push(chunk: Buffer): WebSocketFrame[] {
    if (chunk.length === 0) return [];
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    const frames: WebSocketFrame[] = [];
    for (;;) {
      const frame = this.#next();
      if (!frame) return frames;
      frames.push(frame);
    }
  }

  /**
   * #contiguous returns the first chunk once it holds the next `length` bytes from #offset on,
   * joining the chunks when they do not (a frame split across reads is copied once, when whole).
   */
  #contiguous(length: number): Buffer {
    const first = this.#chunks[0] as Buffer;
    if (first.length - this.#offset >= length) return first;
    const rest = this.#chunks.slice(1);
    const joined = Buffer.concat([first.subarray(this.#offset), ...rest], this.#buffered);
    this.#chunks = [joined];
    this.#offset = 0;
    return joined;
  }

  /** #consume moves past `length` parsed bytes (a frame's header and payload). */
  #consume(length: number): void {
    this.#offset += length;
    this.#buffered -= length;
    if (this.#offset === (this.#chunks[0] as Buffer).length) {
      this.#chunks.shift();
      this.#offset = 0;
    }
  }

  #next(): WebSocketFrame | undefined {
    if (this.#buffered < 2) return undefined;
    let bytes = this.#contiguous(2);
    let at = this.#offset;
    const first = bytes[at] ?? 0;
    const second = bytes[at + 1] ?? 0;
    const fin = (first & 0x80) !== 0;
    const opcode = first & 0x0f;
    const masked = (second & 0x80) !== 0;
    let length = second & 0x7f;
    if ((first & 0x70) !== 0) throw new FrameProtocolError('reserved bits are set', 1002);
    if (masked !== this.#masked) {
      // A client must close on a masked frame from the server (RFC 6455 §5.1), and vice versa.
      throw new FrameProtocolError(
        this.#masked ? 'an unmasked frame from a client' : 'a masked frame from the server',
        1002,
      );
    }
    const control = opcode >= 0x8;
    if (
      !(opcode <= OPCODE.binary || opcode === OPCODE.close || opcode === OPCODE.ping) &&
      opcode !== OPCODE.pong
    ) {
      throw new FrameProtocolError(`unknown opcode ${opcode}`, 1002);
    }
    if (control && (!fin || length > 125)) {
      throw new FrameProtocolError('a control frame is fragmented or longer than 125 bytes', 1002);
    }
    let headerLength = 2;
    if (length === 126) headerLength = 4;
    else if (length === 127) headerLength = 10;
    if (masked) headerLength += 4;
    if (this.#buffered < headerLength) return undefined;
    if (length >= 126) {
      bytes = this.#contiguous(headerLength);
      at = this.#offset;
      if (length === 126) length = bytes.readUInt16BE(at + 2);
      else {
        const high = bytes.readUInt32BE(at + 2);
        if (high > 0x1fffff) throw new FrameProtocolError('frame length out of range', 1009);
        length = high * 2 ** 32 + bytes.readUInt32BE(at + 6);
      }
    }
    if (length > this.#maxPayloadBytes) {
      throw new FrameProtocolError(
        `a frame of ${length} bytes is over the limit of ${this.#maxPayloadBytes}`,
        1009,
      );
    }
    if (this.#buffered < headerLength + length) return undefined;
    bytes = this.#contiguous(headerLength + length);
    at = this.#offset;
    // A view of the read (of the joined copy when the frame spanned reads); empty is shared.
    const payload =
      length === 0 ? EMPTY : bytes.subarray(at + headerLength, at + headerLength + length);
    if (masked) maskInPlace(payload, bytes.subarray(at + headerLength - 4, at + headerLength));
    this.#consume(headerLength + length);
    return { fin, opcode, payload };
  }
}
