// A protobuf writer for the tests' own messages (the recorded answers are the real server's).

/** varint writes a value as a base-128 varint (a negative one as ten bytes, as int64 is sent). */
export function varint(value: bigint | number): number[] {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest === 0n ? low : low | 0x80);
  } while (rest !== 0n);
  return bytes;
}

/** messageField writes a length-delimited field (an embedded message or bytes). */
export const messageField = (field: number, body: number[]): number[] => [
  ...varint((field << 3) | 2),
  ...varint(body.length),
  ...body,
];

/** stringField writes a string field as UTF-8. */
export const stringField = (field: number, text: string): number[] =>
  messageField(field, [...Buffer.from(text, 'utf8')]);

/** varintField writes a varint field (int32, int64, bool). */
export const varintField = (field: number, value: number): number[] => [
  ...varint(field << 3),
  ...varint(value),
];

/** protobufObject wraps a message in the `k8s\0` prefix and a runtime.Unknown. */
export const protobufObject = (apiVersion: string, kind: string, message: number[]): Buffer =>
  Buffer.from([
    ...Buffer.from('k8s\u0000', 'latin1'),
    ...messageField(1, [...stringField(1, apiVersion), ...stringField(2, kind)]),
    ...messageField(2, message),
  ]);
