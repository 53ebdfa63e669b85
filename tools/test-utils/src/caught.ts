/**
 * caught returns what `work` (a promise, or a function that returns or throws) rejected or threw
 * with, and fails when it settled normally: `expect(await caught(call())).toMatchObject({ code })`.
 */
export async function caught(work: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, but the call succeeded');
}
