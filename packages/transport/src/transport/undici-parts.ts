import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import { TransportError } from '../errors.js';

// undici's index loads all of undici before it exports anything: fetch, WebSocket, EventSource,
// cookies, caches, mocks, interceptors. That was 75–95 ms of a program's start on a 2-core
// machine, most of what a Kubernetes CLI pays before its first request (bench/results/
// whole-process.md). k sends through undici's dispatchers only, so it loads those modules (about
// 25 ms) and, as the index does, gives every Dispatcher undici's request API. The classes are the
// index's own (one module each), so a program that imports undici itself shares them.
//
// The files are where undici 7 and 8 keep them, not its public API: where one is missing or is not
// what it should be, the index is loaded instead (slower, never wrong). A unit test holds each
// part to the index's export of the same name. Bun answers a bare `undici` with a module of its
// own whose dispatchers cannot dispatch (undici's files under `undici/lib/` still load from
// node_modules): an index without working dispatchers fails the import, naming the runtime.

/**
 * Dispatcher1WrapperClass is undici's Dispatcher1Wrapper with the static `wrapHandler` its types
 * leave out: a handler of the newer shape as it is, one of the older shape adapted.
 */
type Dispatcher1WrapperClass = typeof Undici.Dispatcher1Wrapper & {
  wrapHandler(handler: object): Undici.Dispatcher.DispatchHandler;
};

/** UndiciParts are the parts of undici @k/transport sends with. */
export interface UndiciParts {
  Dispatcher: typeof Undici.Dispatcher;
  Agent: typeof Undici.Agent;
  Pool: typeof Undici.Pool;
  EnvHttpProxyAgent: typeof Undici.EnvHttpProxyAgent;
  buildConnector: typeof Undici.buildConnector;
  /** Dispatcher1Wrapper adapts handlers of undici's older shape (onConnect, onHeaders, onError). */
  Dispatcher1Wrapper: Dispatcher1WrapperClass;
  /** request sends `url` through `dispatcher` (see {@link requestThrough}). */
  request: (
    dispatcher: Undici.Dispatcher,
    url: string,
    options: RequestThroughOptions,
  ) => Promise<Undici.Dispatcher.ResponseData>;
  /** fromIndex is true when the parts came from undici's index. */
  fromIndex: boolean;
}

/**
 * loadUndiciParts loads the parts with `load` (a `require`), from undici's index when they are
 * not where undici 7 and 8 keep them. It throws a `TransportError` `ERR_TRANSPORT_UNSUPPORTED_RUNTIME`
 * (naming `runtime`, default this process's) when neither has dispatchers that can dispatch.
 */
export function loadUndiciParts(
  load: (id: string) => unknown,
  runtime: string = runtimeName(),
): UndiciParts {
  try {
    const parts = {
      Dispatcher: load('undici/lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher,
      Agent: load('undici/lib/dispatcher/agent.js') as typeof Undici.Agent,
      Pool: load('undici/lib/dispatcher/pool.js') as typeof Undici.Pool,
      EnvHttpProxyAgent: load(
        'undici/lib/dispatcher/env-http-proxy-agent.js',
      ) as typeof Undici.EnvHttpProxyAgent,
      buildConnector: load('undici/lib/core/connect.js') as typeof Undici.buildConnector,
      Dispatcher1Wrapper: load(
        'undici/lib/dispatcher/dispatcher1-wrapper.js',
      ) as Dispatcher1WrapperClass,
    };
    const api = load('undici/lib/api/index.js') as Record<string, unknown>;
    const classes = [parts.Dispatcher, parts.Agent, parts.Pool, parts.EnvHttpProxyAgent];
    const expected =
      classes.every((part) => typeof part === 'function') &&
      classes.slice(1).every((part) => part.prototype instanceof parts.Dispatcher) &&
      typeof parts.buildConnector === 'function' &&
      typeof parts.Dispatcher1Wrapper?.wrapHandler === 'function' &&
      ['request', 'stream', 'pipeline', 'upgrade', 'connect'].every(
        (name) => typeof api[name] === 'function',
      );
    if (!expected) return indexParts(load, runtime, 'undici/lib/ holds other modules');
    // What undici's index does before it exports its dispatchers (the same functions, so doing
    // it again, or the index doing it later, changes nothing).
    Object.assign(parts.Dispatcher.prototype, api);
    const requestApi = api.request as (
      this: Undici.Dispatcher,
      options: Undici.Dispatcher.RequestOptions,
    ) => Promise<Undici.Dispatcher.ResponseData>;
    const request: UndiciParts['request'] = (dispatcher, url, options) => {
      const target = new URL(url);
      return requestApi.call(dispatcher, {
        ...options,
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
      });
    };
    return { ...parts, request, fromIndex: false };
  } catch (error) {
    return indexParts(load, runtime, error instanceof Error ? error.message : String(error));
  }
}

/** dispatches is true when `undici` has undici's dispatchers and request API, in working order. */
function dispatches(undici: Partial<typeof Undici>): boolean {
  return (
    [undici.Agent, undici.Pool, undici.EnvHttpProxyAgent].every(
      (dispatcher) =>
        typeof dispatcher === 'function' && typeof dispatcher.prototype.dispatch === 'function',
    ) &&
    typeof undici.Dispatcher === 'function' &&
    typeof undici.buildConnector === 'function' &&
    typeof (undici.Dispatcher1Wrapper as Partial<Dispatcher1WrapperClass> | undefined)
      ?.wrapHandler === 'function' &&
    typeof undici.request === 'function'
  );
}

/** runtimeName names the JavaScript runtime this process runs on, with its version. */
export function runtimeName(versions: NodeJS.ProcessVersions = process.versions): string {
  const { bun, deno } = versions as NodeJS.ProcessVersions & { bun?: string; deno?: string };
  if (bun) return `Bun ${bun}`;
  if (deno) return `Deno ${deno}`;
  return `Node.js ${versions.node}`;
}

function indexParts(load: (id: string) => unknown, runtime: string, reason: string): UndiciParts {
  const undici = load('undici') as typeof Undici;
  if (!dispatches(undici)) {
    const bun = runtime.startsWith('Bun ');
    throw new TransportError(
      'ERR_TRANSPORT_UNSUPPORTED_RUNTIME',
      `@k/transport cannot send on ${runtime}: undici's dispatcher files did not load ` +
        `(${reason}), and ${bun ? 'Bun answers "undici" with a module of its own, whose dispatchers cannot dispatch' : 'the "undici" it loads has no dispatchers that can dispatch'}; ` +
        `run it where undici is installed beside @k/transport` +
        (bun ? ' (an executable of bun build --compile carries no node_modules)' : ''),
    );
  }
  return {
    Dispatcher: undici.Dispatcher,
    Agent: undici.Agent,
    Pool: undici.Pool,
    EnvHttpProxyAgent: undici.EnvHttpProxyAgent,
    buildConnector: undici.buildConnector,
    Dispatcher1Wrapper: undici.Dispatcher1Wrapper as Dispatcher1WrapperClass,
    request: (dispatcher, url, options) => undici.request(url, { ...options, dispatcher }),
    fromIndex: true,
  };
}

const parts = loadUndiciParts(createRequire(import.meta.url));

export const { Dispatcher, Agent, Pool, EnvHttpProxyAgent, buildConnector, Dispatcher1Wrapper } =
  parts;

/** undiciPartsFromIndex is true when this undici keeps its parts elsewhere and its index was loaded. */
export const undiciPartsFromIndex = parts.fromIndex;

/** RequestThroughOptions are undici's request options but the target, which is the URL. */
export type RequestThroughOptions = Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path'>;

/**
 * requestThrough sends `url` through `dispatcher` (anything with undici's `dispatch`) and
 * resolves with the response: undici's `request(url, { dispatcher, ... })`, without its index.
 */
export const requestThrough = parts.request;
