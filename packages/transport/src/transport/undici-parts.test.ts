import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import * as parts from './undici-parts.js';
import { loadUndiciParts } from './undici-parts.js';

const require = createRequire(import.meta.url);
const NAMES = ['Dispatcher', 'Agent', 'Pool', 'EnvHttpProxyAgent', 'buildConnector'] as const;

describe('undici parts', () => {
  it("loads undici's own classes without its index, and its request API on every dispatcher", () => {
    expect(parts.undiciPartsFromIndex).toBe(false);
    for (const name of NAMES) expect(parts[name], name).toBe(undici[name]);
    const loaded = loadUndiciParts(require);
    expect(loaded.fromIndex).toBe(false);
    expect(typeof new parts.Agent().request).toBe('function');
  });

  it("falls back to undici's index when a part is missing or is not what it should be", () => {
    const missing = loadUndiciParts((id) => {
      if (id === 'undici/lib/dispatcher/pool.js') throw new Error(`Cannot find module '${id}'`);
      return require(id);
    });
    const changed = loadUndiciParts((id) =>
      id === 'undici/lib/dispatcher/agent.js' ? { Agent: undici.Agent } : require(id),
    );
    for (const loaded of [missing, changed]) {
      expect(loaded.fromIndex).toBe(true);
      for (const name of NAMES) expect(loaded[name], name).toBe(undici[name]);
    }
  });

  it.each([
    ['the parts', parts.requestThrough],
    ["undici's index", loadUndiciParts((id) => (id === 'undici' ? require(id) : {})).request],
  ])('sends through any dispatcher with %s, as undici.request does', (_, requestThrough) => {
    const seen: string[] = [];
    const dispatcher = new (class extends parts.Dispatcher {
      override dispatch(options: undici.Dispatcher.DispatchOptions): boolean {
        seen.push(`${options.method} ${String(options.origin)}${options.path}`);
        return true;
      }
    })();
    void requestThrough(dispatcher, 'https://issuer.example/token?x=1', { method: 'POST' });
    expect(seen).toEqual(['POST https://issuer.example/token?x=1']);
  });

  it("never loads undici's index in a program that uses only @k/transport", () => {
    // A fresh process: this one loaded the index above.
    const program = [
      `import { Agent, undiciPartsFromIndex } from ${JSON.stringify(new URL('./undici-parts.ts', import.meta.url).pathname)};`,
      `import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';`,
      `const index = createRequire(import.meta.url).resolve('undici');`,
      `const loaded = Object.keys(createRequire(import.meta.url).cache).includes(index);`,
      `process.stdout.write(JSON.stringify({ undiciPartsFromIndex, loaded, request: typeof new Agent().request }));`,
    ].join('\n');
    const output = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', program],
      { encoding: 'utf8', cwd: fileURLToPath(new URL('.', import.meta.url)) },
    );
    expect(JSON.parse(output)).toEqual({
      undiciPartsFromIndex: false,
      loaded: false,
      request: 'function',
    });
  });
});
