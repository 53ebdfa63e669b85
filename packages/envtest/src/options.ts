import { homedir } from 'node:os';
import path from 'node:path';
import { ENVTEST_CACHE_ENV } from './constants.js';
import { EnvtestError } from './errors.js';
import type {
  BinariesOption,
  ComponentName,
  CrdSource,
  EnvironmentOptions,
  ProgressEvent,
} from './types.js';

/** DEFAULT_NODES is how many kwok nodes a plane gets when kwok is there and the scheduler runs. */
const DEFAULT_NODES = 2;

/** DEFAULT_START_TIMEOUT_MS is the start's budget once the binaries are there. */
export const DEFAULT_START_TIMEOUT_MS = 120_000;

/** DEFAULT_STOP_GRACE_MS is how long a component may take to exit after SIGTERM. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

/** ProgressListener receives {@link ProgressEvent}s. */
type ProgressListener = (event: ProgressEvent) => void;

/**
 * ResolvedEnvironmentOptions are {@link EnvironmentOptions} with every default applied that does
 * not depend on the binaries (the components do: see {@link planComponents}).
 */
export interface ResolvedEnvironmentOptions {
  readonly binaries: BinariesOption;
  readonly build: boolean;
  readonly cacheRoot: string;
  readonly controllerManager: boolean | undefined;
  readonly scheduler: boolean | undefined;
  readonly nodes: number | undefined;
  readonly extraApiServerFlags: readonly string[];
  readonly extraControllerManagerFlags: readonly string[];
  readonly extraSchedulerFlags: readonly string[];
  readonly extraEtcdFlags: readonly string[];
  readonly extraKwokFlags: readonly string[];
  readonly crds: CrdSource | undefined;
  readonly timeoutMs: number;
  readonly stopGraceMs: number;
  /** buildProgress: the user's listener, else one line per event on stderr (a build takes minutes). */
  readonly buildProgress: ProgressListener;
  /** startProgress: the user's listener, else nothing (a start takes seconds). */
  readonly startProgress: ProgressListener;
  /** kwok: whether kwok is wanted from the cache (nodes may be asked for or defaulted). */
  readonly kwok: boolean;
}

/** ComponentPlan is which optional components a start runs, once the binaries are known. */
export interface ComponentPlan {
  readonly controllerManager: boolean;
  readonly scheduler: boolean;
  readonly nodes: number;
}

const OPTION_NAMES: ReadonlySet<string> = new Set([
  'binaries',
  'build',
  'cacheRoot',
  'controllerManager',
  'scheduler',
  'nodes',
  'extraApiServerFlags',
  'extraControllerManagerFlags',
  'extraSchedulerFlags',
  'extraEtcdFlags',
  'extraKwokFlags',
  'crds',
  'timeoutMs',
  'stopGraceMs',
  'onProgress',
]);

/** The options only the runners (`useEnvironment`, the global setup) take. */
const RUNNER_OPTION_NAMES: ReadonlySet<string> = new Set(['own', 'reuse']);

function invalid(message: string): EnvtestError {
  return new EnvtestError('ERR_ENVTEST_INVALID_OPTIONS', message, { step: 'options' });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** describe names a value's type for a message without echoing what it holds. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : `${value}`;
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}

function booleanOption(options: Record<string, unknown>, name: string): boolean | undefined {
  const value = options[name];
  if (value === undefined || typeof value === 'boolean') return value;
  throw invalid(`${name} must be true or false, got ${describe(value)}`);
}

function durationOption(options: Record<string, unknown>, name: string, fallback: number): number {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalid(`${name} must be a number of milliseconds above 0, got ${describe(value)}`);
  }
  return value;
}

function flagsOption(options: Record<string, unknown>, name: string): readonly string[] {
  const value = options[name];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((flag) => typeof flag === 'string')) {
    throw invalid(`${name} must be an array of strings, got ${describe(value)}`);
  }
  return [...value];
}

function binariesOption(value: unknown): BinariesOption {
  if (value === undefined) return 'auto';
  if (value === 'auto' || value === 'cache') return value;
  if (isPlainObject(value)) {
    const extra = Object.keys(value).filter((key) => key !== 'directory');
    if (typeof value.directory === 'string' && value.directory !== '' && extra.length === 0) {
      return { directory: value.directory };
    }
  }
  throw invalid(
    `binaries must be 'auto', 'cache' or { directory: '<a setup-envtest directory>' }, got ${typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : describe(value)}`,
  );
}

function nodesOption(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw invalid(`nodes must be a whole number of 0 or more, got ${describe(value)}`);
  }
  return value;
}

/**
 * resolveEnvtestCacheRoot is where built binaries are cached: `K_ENVTEST_CACHE` when set, else
 * `$XDG_CACHE_HOME/k-envtest`, else `~/.cache/k-envtest`.
 */
export function resolveEnvtestCacheRoot(
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  const explicit = env[ENVTEST_CACHE_ENV];
  if (explicit) return explicit;
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg ? xdg : path.join(home, '.cache'), 'k-envtest');
}

/** formatElapsed renders ms as `850ms`, `12.3s` or `4m05s`. */
function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

/** formatProgressLine renders an event as one line, e.g. `[k-envtest] go build: done (3.1s)`. */
export function formatProgressLine(event: ProgressEvent): string {
  const suffix =
    event.kind === 'start' || event.kind === 'info' ? '' : ` (${formatElapsed(event.elapsedMs)})`;
  return `[k-envtest] ${event.step}: ${event.message}${suffix}`;
}

/** stderrProgress writes each event as one line on stderr. */
const stderrProgress: ProgressListener = (event) => {
  process.stderr.write(`${formatProgressLine(event)}\n`);
};

const silentProgress: ProgressListener = () => {};

/**
 * resolveEnvironmentOptions checks `options` and applies the defaults that do not depend on the
 * binaries: every failure is `ERR_ENVTEST_INVALID_OPTIONS`, naming the option and never echoing
 * what it holds. `own` and `reuse` belong to the runners (`useEnvironment`, the global setup) and
 * are refused here with a message that says so.
 */
export function resolveEnvironmentOptions(
  options: EnvironmentOptions | undefined = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedEnvironmentOptions {
  if (!isPlainObject(options)) {
    throw invalid(`the options must be an object, got ${describe(options)}`);
  }
  const record = options;
  for (const name of Object.keys(record)) {
    if (RUNNER_OPTION_NAMES.has(name)) {
      throw invalid(
        `${name} is an option of the test runners (useEnvironment from @k/envtest/vitest or @k/envtest/node-test, defineGlobalSetup), not of startEnvironment`,
      );
    }
    if (!OPTION_NAMES.has(name)) {
      throw invalid(
        `unknown option ${JSON.stringify(name.slice(0, 60))}; the options are ${[...OPTION_NAMES].join(', ')}`,
      );
    }
  }
  const cacheRoot = record.cacheRoot;
  if (cacheRoot !== undefined && (typeof cacheRoot !== 'string' || cacheRoot === '')) {
    throw invalid(`cacheRoot must be a directory path, got ${describe(cacheRoot)}`);
  }
  const crds = record.crds;
  if (crds !== undefined && !isPlainObject(crds)) {
    throw invalid(`crds must be an object ({ paths, objects, … }), got ${describe(crds)}`);
  }
  const onProgress = record.onProgress;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw invalid(`onProgress must be a function, got ${describe(onProgress)}`);
  }
  const scheduler = booleanOption(record, 'scheduler');
  const nodes = nodesOption(record.nodes);
  const binaries = binariesOption(record.binaries);
  const listener = onProgress as ProgressListener | undefined;
  return {
    binaries,
    build: booleanOption(record, 'build') ?? true,
    cacheRoot: cacheRoot ?? resolveEnvtestCacheRoot(env),
    controllerManager: booleanOption(record, 'controllerManager'),
    scheduler,
    nodes,
    extraApiServerFlags: flagsOption(record, 'extraApiServerFlags'),
    extraControllerManagerFlags: flagsOption(record, 'extraControllerManagerFlags'),
    extraSchedulerFlags: flagsOption(record, 'extraSchedulerFlags'),
    extraEtcdFlags: flagsOption(record, 'extraEtcdFlags'),
    extraKwokFlags: flagsOption(record, 'extraKwokFlags'),
    crds: crds,
    timeoutMs: durationOption(record, 'timeoutMs', DEFAULT_START_TIMEOUT_MS),
    stopGraceMs: durationOption(record, 'stopGraceMs', DEFAULT_STOP_GRACE_MS),
    buildProgress: listener ?? stderrProgress,
    startProgress: listener ?? silentProgress,
    // kwok only ever comes from the cache; a directory has none, and 0 nodes need none.
    kwok: typeof binaries !== 'object' && (nodes === undefined ? scheduler !== false : nodes > 0),
  };
}

/**
 * planComponents applies the defaults that depend on the binaries: kube-controller-manager and
 * kube-scheduler run when the binaries have them, and there are {@link DEFAULT_NODES} nodes when
 * kwok is there and the scheduler runs (nodes need it to get Pods), else none. Asking for a
 * component the binaries lack is `ERR_ENVTEST_COMPONENT_UNAVAILABLE`, naming it, where the
 * binaries came from and the two ways out.
 */
export function planComponents(
  options: Pick<ResolvedEnvironmentOptions, 'controllerManager' | 'scheduler' | 'nodes'>,
  available: readonly ComponentName[],
  where: string,
): ComponentPlan {
  const has = (component: ComponentName) => available.includes(component);
  const unavailable = (component: string, option: string) =>
    new EnvtestError(
      'ERR_ENVTEST_COMPONENT_UNAVAILABLE',
      `${component} was asked for, but the binaries from ${where} have no ${component}; ` +
        `set ${option}, or use the built binaries (binaries: 'cache'; \`npx k-envtest build\` builds every component)`,
      { step: 'resolve binaries' },
    );
  if (options.controllerManager === true && !has('kube-controller-manager')) {
    throw unavailable('kube-controller-manager', 'controllerManager: false');
  }
  if (options.scheduler === true && !has('kube-scheduler')) {
    throw unavailable('kube-scheduler', 'scheduler: false');
  }
  const scheduler = options.scheduler ?? has('kube-scheduler');
  if (options.nodes !== undefined && options.nodes > 0 && !has('kwok')) {
    throw unavailable(`kwok (for nodes: ${options.nodes})`, 'nodes: 0');
  }
  return {
    controllerManager: options.controllerManager ?? has('kube-controller-manager'),
    scheduler,
    nodes: options.nodes ?? (has('kwok') && scheduler ? DEFAULT_NODES : 0),
  };
}
