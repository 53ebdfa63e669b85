import type { Dispatcher } from 'undici';

/**
 * isReplayableBody reports whether a request body can be sent a second time: no body, a string
 * or bytes. Streams, iterables and form data are consumed by the first attempt.
 */
export function isReplayableBody(body: Dispatcher.DispatchOptions['body']): boolean {
  return (
    body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array
  );
}
