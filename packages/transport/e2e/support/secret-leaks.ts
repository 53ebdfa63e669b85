import { inspect } from 'node:util';

/**
 * secretLeaks renders `error` every way a program or a log might — `util.inspect` with infinite
 * depth (with and without hidden properties), `JSON.stringify` of the error and of each error in
 * its `cause` chain, `String()`, and an `Error` that wraps it as its cause — and returns a
 * description of each rendering that contains one of `secrets` (empty when none does).
 */
export function secretLeaks(error: unknown, secrets: readonly string[]): string[] {
  const renderings: [string, string][] = [
    ['inspect', inspect(error, { depth: Infinity })],
    ['inspect (hidden)', inspect(error, { depth: Infinity, showHidden: true })],
    ['String', String(error)],
    ['wrapped', inspect(new Error('a request failed', { cause: error }), { depth: Infinity })],
  ];
  let link: unknown = error;
  for (let depth = 0; link !== undefined && link !== null && depth < 10; depth++) {
    renderings.push([`JSON of cause level ${depth}`, JSON.stringify(link) ?? '']);
    link = (link as { cause?: unknown }).cause;
  }
  const leaks: string[] = [];
  for (const [name, text] of renderings) {
    for (const secret of secrets) {
      if (text.includes(secret)) leaks.push(`${name} holds ${JSON.stringify(secret)}:\n${text}`);
    }
  }
  return leaks;
}
