const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

// The keys from a watch frame down to the member to cut: frame.object.metadata.managedFields.
const PATH = ['object', 'metadata', 'managedFields'].map((key) => Buffer.from(key));
const LAST = PATH.length - 1;

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipWhitespace(bytes: Buffer, index: number, end: number): number {
  while (index < end && isWhitespace(bytes[index])) index += 1;
  return index;
}

/** skipString: `bytes[index]` is a quote; the index after the closing quote, or -1. */
function skipString(bytes: Buffer, index: number, end: number): number {
  for (index += 1; index < end; index += 1) {
    const byte = bytes[index];
    if (byte === BACKSLASH) index += 1;
    else if (byte === QUOTE) return index + 1;
  }
  return -1;
}

/** skipValue: the index after the JSON value that starts at `index`, or -1; it does not validate. */
function skipValue(bytes: Buffer, index: number, end: number): number {
  const first = bytes[index];
  if (first === QUOTE) return skipString(bytes, index, end);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    while (index < end) {
      const byte = bytes[index];
      if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isWhitespace(byte))
        break;
      index += 1;
    }
    return index;
  }
  let depth = 0;
  for (; index < end; index += 1) {
    const byte = bytes[index];
    if (byte === QUOTE) {
      // Inline string skip: this loop runs over every byte of the cut member.
      for (index += 1; index < end; index += 1) {
        const inString = bytes[index];
        if (inString === BACKSLASH) index += 1;
        else if (inString === QUOTE) break;
      }
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}

function keyIs(bytes: Buffer, start: number, end: number, key: Buffer): boolean {
  if (end - start !== key.length) return false;
  for (let index = 0; index < key.length; index += 1) {
    if (bytes[start + index] !== key[index]) return false;
  }
  return true;
}

/**
 * managedFieldsMember finds `object.metadata.managedFields` in the bytes `[start, end)` of one
 * watch frame (`{"type":…,"object":{…,"metadata":{…,"managedFields":[…]}}}`) and returns the
 * range to cut so that what is left is the same JSON without that member (the member with one
 * adjoining comma), or undefined when it is not there. It reads only the keys on that path and
 * skips every other value by its brackets and quotes, without decoding it; it does not validate
 * what it skips, and anything it does not expect (a key spelled with escapes, bad JSON) makes
 * it return undefined, so the frame is then parsed whole.
 */
export function managedFieldsMember(
  bytes: Buffer,
  start: number,
  end: number,
): [from: number, to: number] | undefined {
  let index = skipWhitespace(bytes, start, end);
  for (const [depth, key] of PATH.entries()) {
    if (bytes[index] !== OPEN_BRACE) return undefined;
    index = skipWhitespace(bytes, index + 1, end);
    let previousValueEnd = -1;
    for (;;) {
      if (bytes[index] !== QUOTE) return undefined;
      const memberStart = index;
      const keyEnd = skipString(bytes, index, end);
      if (keyEnd === -1) return undefined;
      const wanted = keyIs(bytes, index + 1, keyEnd - 1, key);
      index = skipWhitespace(bytes, keyEnd, end);
      if (bytes[index] !== COLON) return undefined;
      index = skipWhitespace(bytes, index + 1, end);
      if (wanted && depth < LAST) break; // descend into this member's object
      const valueEnd = skipValue(bytes, index, end);
      if (valueEnd === -1) return undefined;
      index = skipWhitespace(bytes, valueEnd, end);
      if (wanted) {
        if (previousValueEnd !== -1) return [previousValueEnd, valueEnd];
        // The first member: cut it with the comma after it, if another member follows.
        if (bytes[index] !== COMMA)
          return bytes[index] === CLOSE_BRACE ? [memberStart, index] : undefined;
        return [memberStart, skipWhitespace(bytes, index + 1, end)];
      }
      if (bytes[index] !== COMMA) return undefined; // the object ended without the key
      previousValueEnd = valueEnd;
      index = skipWhitespace(bytes, index + 1, end);
    }
  }
  return undefined;
}
