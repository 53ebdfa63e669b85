import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WatchDecodeError } from '../errors.js';
import { WatchDecoder, type DecodedWatchEvent } from './watch-decoder.js';

const frames = [
  {
    type: 'ADDED',
    object: { metadata: { name: 'a', resourceVersion: '1' }, data: { x: 'ünïcödé ✓' } },
  },
  { type: 'MODIFIED', object: { metadata: { name: 'a', resourceVersion: '2' } } },
  { type: 'BOOKMARK', object: { metadata: { resourceVersion: '3' } } },
  { type: 'DELETED', object: { metadata: { name: 'a', resourceVersion: '4' } } },
  {
    type: 'ERROR',
    object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 },
  },
];
const stream = Buffer.from(frames.map((frame) => `${JSON.stringify(frame)}\n`).join(''));

function decodeInChunks(bytes: Buffer, chunkSize: number): DecodedWatchEvent[] {
  const decoder = new WatchDecoder();
  const events: DecodedWatchEvent[] = [];
  for (let start = 0; start < bytes.length; start += chunkSize) {
    events.push(...decoder.push(bytes.subarray(start, start + chunkSize)));
  }
  const end = decoder.end();
  expect(end.incompleteBytes).toBe(0);
  return [...events, ...end.events];
}

describe('WatchDecoder', () => {
  it('decodes events however the bytes are split, even inside a UTF-8 character', () => {
    for (const chunkSize of [1, 2, 3, 7, 64, stream.length]) {
      expect(decodeInChunks(stream, chunkSize)).toEqual(frames);
    }
  });

  it('decodes any stream split anywhere the same, with or without managedFields cut (property)', () => {
    const frame = fc.record({
      type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED'),
      object: fc.record({
        metadata: fc.record({
          name: fc.string({ unit: 'grapheme', maxLength: 12 }),
          managedFields: fc.array(fc.record({ manager: fc.string({ unit: 'grapheme' }) }), {
            maxLength: 2,
          }),
        }),
        data: fc.dictionary(fc.string(), fc.string({ unit: 'grapheme', maxLength: 40 })),
      }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(frame, fc.constantFrom('', '\n', ' \r\n')), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (framesWithGaps, cutSeeds) => {
          const bytes = Buffer.from(
            framesWithGaps.map(([event, gap]) => `${JSON.stringify(event)}\n${gap}`).join(''),
          );
          const cuts = [...new Set(cutSeeds.map((seed) => seed % (bytes.length + 1)))].sort(
            (a, b) => a - b,
          );
          for (const omitManagedFields of [false, true]) {
            const decoder = new WatchDecoder({ omitManagedFields });
            const events: DecodedWatchEvent[] = [];
            let start = 0;
            for (const cut of [...cuts, bytes.length]) {
              events.push(...decoder.push(bytes.subarray(start, cut)));
              start = cut;
            }
            events.push(...decoder.end().events);
            const expected = framesWithGaps.map(([event]) =>
              omitManagedFields
                ? {
                    ...event,
                    object: {
                      ...event.object,
                      metadata: { name: event.object.metadata.name },
                    },
                  }
                : event,
            );
            expect(events).toEqual(expected);
          }
        },
      ),
    );
  });

  it('emits an event as soon as its newline arrives', () => {
    const decoder = new WatchDecoder();
    const first = Buffer.from(
      `${JSON.stringify(frames[0])}\n${JSON.stringify(frames[1]).slice(0, 10)}`,
    );
    expect(decoder.push(first)).toEqual([frames[0]]);
    expect(decoder.bufferedBytes).toBe(10);
    expect(decoder.push(Buffer.from(`${JSON.stringify(frames[1]).slice(10)}\n`))).toEqual([
      frames[1],
    ]);
  });

  it('skips blank lines and decodes a last event without newline', () => {
    const decoder = new WatchDecoder();
    expect(decoder.push(Buffer.from(`\n\r\n  \n${JSON.stringify(frames[0])}`))).toEqual([]);
    expect(decoder.end()).toEqual({ events: [frames[0]], incompleteBytes: 0 });
  });

  it('reports an event cut off by the end of the stream', () => {
    const decoder = new WatchDecoder();
    decoder.push(Buffer.from('{"type":"ADDED","object":{"metadata":'));
    expect(decoder.end()).toEqual({ events: [], incompleteBytes: 37 });
  });

  it('rejects an unknown type with client-go’s message (G3)', () => {
    const decoder = new WatchDecoder();
    expect(() => decoder.push(Buffer.from('{"type":"FOO","object":{}}\n'))).toThrow(
      new WatchDecodeError('got invalid watch event type: FOO'),
    );
  });

  it('rejects malformed frames with a WatchDecodeError', () => {
    for (const line of ['{"type":"ADDED",', '[1,2]', '{"type":"ADDED"}', '42']) {
      const decoder = new WatchDecoder();
      let caught: unknown;
      try {
        decoder.push(Buffer.from(`${line}\n`));
      } catch (error) {
        caught = error;
      }
      expect(WatchDecodeError.isInstance(caught), line).toBe(true);
    }
  });

  it('bounds the size of one buffered event', () => {
    const decoder = new WatchDecoder({ maxEventBytes: 16 });
    expect(() => decoder.push(Buffer.from('{"type":"ADDED","object":{'))).toThrow(
      /exceeds 16 bytes/,
    );
  });

  it('decodes objects without metadata.managedFields when asked, however the bytes are split', () => {
    const managed = [{ manager: 'kubectl', fieldsV1: { 'f:data': { 'f:x': {} } } }];
    const withManaged = frames.map((frame) =>
      frame.type === 'ERROR'
        ? frame
        : {
            ...frame,
            object: {
              ...frame.object,
              metadata: { ...frame.object.metadata, managedFields: managed },
            },
          },
    );
    const bytes = Buffer.from(withManaged.map((frame) => `${JSON.stringify(frame)}\n`).join(''));
    for (const chunkSize of [1, 5, 64, bytes.length]) {
      const decoder = new WatchDecoder({ omitManagedFields: true });
      const events: DecodedWatchEvent[] = [];
      for (let start = 0; start < bytes.length; start += chunkSize) {
        events.push(...decoder.push(bytes.subarray(start, start + chunkSize)));
      }
      expect(events).toEqual(frames);
    }
    expect(new WatchDecoder().push(bytes)).toEqual(withManaged);
  });

  it('still rejects a malformed frame when omitting managedFields', () => {
    const decoder = new WatchDecoder({ omitManagedFields: true });
    expect(() =>
      decoder.push(Buffer.from('{"type":"ADDED","object":{"metadata":{"managedFields":[]},}}\n')),
    ).toThrow(WatchDecodeError);
  });
});
