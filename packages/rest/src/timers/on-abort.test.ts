import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from './on-abort.js';

function abortListenerCount(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

describe('onAbort', () => {
  it('puts one listener on a signal however many subscribe, and removes it with the last', () => {
    const controller = new AbortController();
    const unsubscribes = Array.from({ length: 50 }, () => onAbort(controller.signal, () => {}));
    expect(abortListenerCount(controller.signal)).toBe(1);
    for (const unsubscribe of unsubscribes) unsubscribe();
    expect(abortListenerCount(controller.signal)).toBe(0);
  });

  it('calls every current subscriber once on abort, and none that left', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const callback = (index: number) => () => void calls.push(index);
    onAbort(controller.signal, callback(1));
    const leave = onAbort(controller.signal, callback(2));
    onAbort(controller.signal, callback(3));
    leave();
    controller.abort();
    controller.abort();
    expect(calls).toEqual([1, 3]);
  });

  it('gives a signal a fresh listener after an unsubscribe emptied it', () => {
    const controller = new AbortController();
    onAbort(controller.signal, () => {})();
    let called = false;
    onAbort(controller.signal, () => (called = true));
    controller.abort();
    expect(called).toBe(true);
  });
});
