import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../errors.js';
import * as parts from './undici-parts.js';
import { loadUndiciParts, runtimeName } from './undici-parts.js';

const require = createRequire(import.meta.url);
const NAMES = [
  'Dispatcher',
  'Agent',
  'Pool',
  'EnvHttpProxyAgent',
  'buildConnector',
  'Dispatcher1Wrapper',
] as const;

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

  it("fails at import, naming the runtime, when undici's files are missing and its index cannot dispatch (Bun's own undici)", () => {
    // The shape of what Bun 1.4 answers a bare `undici` with: classes without `dispatch`
    // (tools/workspace/e2e/other-runtimes.e2e.test.ts meets the real one in a bun executable).
    class BunDispatcher {}
    const bunUndici = {
      Dispatcher: BunDispatcher,
      Agent: class Agent extends BunDispatcher {},
      Pool: class Pool extends BunDispatcher {},
      EnvHttpProxyAgent: class EnvHttpProxyAgent extends BunDispatcher {},
      buildConnector: () => undefined,
      request: () => Promise.resolve(),
    };
    const load = (id: string): unknown => {
      if (id === 'undici') return bunUndici;
      throw new Error(`Cannot find module '${id}' from '/$bunfs/root/program'`);
    };
    let thrown: unknown;
    try {
      loadUndiciParts(load, 'Bun 1.4.5');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TransportError);
    expect(thrown).toMatchObject({ code: 'ERR_TRANSPORT_UNSUPPORTED_RUNTIME' });
    expect((thrown as Error).message).toBe(
      "@k/transport cannot send on Bun 1.4.5: undici's dispatcher files did not load " +
        "(Cannot find module 'undici/lib/dispatcher/dispatcher.js' from '/$bunfs/root/program'), " +
        'and Bun answers "undici" with a module of its own, whose dispatchers cannot dispatch; ' +
        'run it where undici is installed beside @k/transport ' +
        '(an executable of bun build --compile carries no node_modules)',
    );
  });

  it('names the runtime it runs on', () => {
    expect(runtimeName({ ...process.versions, bun: '1.4.5' })).toBe('Bun 1.4.5');
    expect(runtimeName({ ...process.versions, deno: '2.9.6' })).toBe('Deno 2.9.6');
    expect(runtimeName({ ...process.versions, node: '24.22.3' })).toBe('Node.js 24.22.3');
    expect(runtimeName()).toBe(`Node.js ${process.versions.node}`);
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
