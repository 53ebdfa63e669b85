import { isAlreadyExists, isNotFound } from '@k/rest/errors';
import { checkArgument } from './validation/check-arguments.js';
import type { ArgumentRule } from './validation/argument-rules.js';

/** A request in flight: what a client's call returns, not the call itself. */
const REQUEST: ArgumentRule = {
  expected: "a promise (the call's result, e.g. client.delete(name), not a function)",
  // A function (the call itself) has no `then`.
  test: (value) => typeof (value as { then?: unknown } | null | undefined)?.then === 'function',
};

async function ignoring<T>(
  where: string,
  request: PromiseLike<T>,
  ignored: (error: unknown) => boolean,
): Promise<T | undefined> {
  checkArgument(request, REQUEST, 'request', { where });
  try {
    return await request;
  } catch (error) {
    if (ignored(error)) return undefined;
    throw error;
  }
}

/**
 * ignoreNotFound resolves with what `request` resolves with, or with `undefined` when the server
 * answered NotFound (`isNotFound`: reason NotFound, or a 404 without a Status), and rejects with
 * any other error as it came — controller-runtime's `client.IgnoreNotFound`:
 * `await ignoreNotFound(cs.coreV1.configMaps('ns').delete('settings'))` deletes what may already
 * be gone; `await ignoreNotFound(configMaps.get('settings'))` is the object or `undefined`. A
 * resource the server does not serve at all (a CRD not installed) answers NotFound as well.
 * Rejects with a `ClientsetError` (`ERR_CLIENTSET_INVALID_ARGUMENT`) when `request` is no promise.
 */
export function ignoreNotFound<T>(request: PromiseLike<T>): Promise<T | undefined> {
  return ignoring('ignoreNotFound', request, isNotFound);
}

/**
 * ignoreAlreadyExists resolves with what `request` resolves with, or with `undefined` when the
 * server answered that the object already exists (`isAlreadyExists`: a create's 409 with reason
 * AlreadyExists), and rejects with any other error as it came — a 409 Conflict (a stale
 * `resourceVersion`, an apply conflict) included:
 * `await ignoreAlreadyExists(cs.coreV1.namespaces().create(namespace))`.
 * Rejects with a `ClientsetError` (`ERR_CLIENTSET_INVALID_ARGUMENT`) when `request` is no promise.
 */
export function ignoreAlreadyExists<T>(request: PromiseLike<T>): Promise<T | undefined> {
  return ignoring('ignoreAlreadyExists', request, isAlreadyExists);
}
