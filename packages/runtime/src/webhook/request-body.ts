import type { Http2ServerRequest } from 'node:http2';

/** BodyBudget is the bytes all calls of one server may still hold (shared, updated in place). */
export interface BodyBudget {
  available: number;
}

/** BodyOutcome is a body read in full (its bytes held against the budget until `release`), or why not. */
export type BodyOutcome =
  | { outcome: 'read'; bytes: Uint8Array; release: () => void }
  | { outcome: 'tooLarge' | 'busy' | 'aborted'; message: string };

/**
 * readBody reads `request`'s body into one buffer, up to `maxBytes`: a `content-length` above it is
 * refused before any byte is read, and a body that grows past it stops being read at once
 * (`tooLarge`); `busy` when the bytes would take `budget` below zero; `aborted` when `signal`
 * aborts or the client goes away first. It never throws and never parses the bytes.
 */
export function readBody(
  request: Http2ServerRequest,
  options: { maxBytes: number; budget: BodyBudget; signal: AbortSignal },
): Promise<BodyOutcome> {
  const { maxBytes, budget, signal } = options;
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    return Promise.resolve({
      outcome: 'tooLarge',
      message: `the request body of ${declared} bytes is larger than ${maxBytes}`,
    });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let held = 0;
    const finish = (outcome: BodyOutcome): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onGone);
      request.off('close', onGone);
      signal.removeEventListener('abort', onAbort);
      if (outcome.outcome !== 'read') {
        request.pause();
        budget.available += held;
        held = 0;
      }
      resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      if (held + chunk.length > maxBytes) {
        finish({
          outcome: 'tooLarge',
          message: `the request body is larger than ${maxBytes} bytes`,
        });
        return;
      }
      if (chunk.length > budget.available) {
        finish({
          outcome: 'busy',
          message: 'the webhook server holds too many request bodies; try again',
        });
        return;
      }
      budget.available -= chunk.length;
      held += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      let released = false;
      const bytes = Buffer.concat(chunks, held);
      const amount = held;
      finish({
        outcome: 'read',
        bytes,
        release: () => {
          if (released) return;
          released = true;
          budget.available += amount;
        },
      });
    };
    const onGone = (): void =>
      finish({ outcome: 'aborted', message: 'the request body did not arrive' });
    const onAbort = (): void =>
      finish({ outcome: 'aborted', message: 'the request body did not arrive in time' });
    if (signal.aborted) {
      onAbort();
      return;
    }
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onGone);
    request.on('close', onGone);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
