import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EnvtestError } from './errors.js';
import {
  DEFAULT_START_TIMEOUT_MS,
  DEFAULT_STOP_GRACE_MS,
  formatProgressLine,
  planComponents,
  resolveEnvironmentOptions,
  resolveEnvtestCacheRoot,
} from './options.js';
import type { ComponentName, EnvironmentOptions } from './types.js';

const ALL: readonly ComponentName[] = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
];
const DIRECTORY_ONLY: readonly ComponentName[] = ['etcd', 'kube-apiserver'];

function refusal(action: () => unknown): EnvtestError {
  try {
    action();
  } catch (error) {
    if (EnvtestError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('resolveEnvtestCacheRoot', () => {
  it('prefers K_ENVTEST_CACHE, then $XDG_CACHE_HOME/k-envtest, then ~/.cache/k-envtest', () => {
    expect(
      resolveEnvtestCacheRoot({ K_ENVTEST_CACHE: '/c', XDG_CACHE_HOME: '/x' }, '/home/u'),
    ).toBe('/c');
    expect(resolveEnvtestCacheRoot({ XDG_CACHE_HOME: '/x' }, '/home/u')).toBe(
      path.join('/x', 'k-envtest'),
    );
    expect(resolveEnvtestCacheRoot({ K_ENVTEST_CACHE: '', XDG_CACHE_HOME: '' }, '/home/u')).toBe(
      path.join('/home/u', '.cache', 'k-envtest'),
    );
    // The engine's variable is not the public one.
    expect(resolveEnvtestCacheRoot({ K_TESTENV_CACHE: '/engine' }, '/home/u')).toBe(
      path.join('/home/u', '.cache', 'k-envtest'),
    );
  });
});

describe('resolveEnvironmentOptions', () => {
  it('applies the defaults, undefined fields included', () => {
    const resolved = resolveEnvironmentOptions(
      { binaries: undefined, nodes: undefined, onProgress: undefined, timeoutMs: undefined },
      { K_ENVTEST_CACHE: '/cache' },
    );
    expect(resolved).toMatchObject({
      binaries: 'auto',
      build: true,
      cacheRoot: '/cache',
      controllerManager: undefined,
      scheduler: undefined,
      nodes: undefined,
      extraApiServerFlags: [],
      timeoutMs: DEFAULT_START_TIMEOUT_MS,
      stopGraceMs: DEFAULT_STOP_GRACE_MS,
      kwok: true,
    });
    expect(resolveEnvironmentOptions(undefined, {}).binaries).toBe('auto');
  });

  it('wants kwok only when nodes may run: not for 0 nodes, no scheduler, or a directory', () => {
    expect(resolveEnvironmentOptions({ nodes: 0 }, {}).kwok).toBe(false);
    expect(resolveEnvironmentOptions({ nodes: 1 }, {}).kwok).toBe(true);
    expect(resolveEnvironmentOptions({ scheduler: false }, {}).kwok).toBe(false);
    expect(resolveEnvironmentOptions({ binaries: { directory: '/d' } }, {}).kwok).toBe(false);
    expect(resolveEnvironmentOptions({ binaries: 'cache' }, {}).kwok).toBe(true);
  });

  it('sends build progress to stderr and keeps start steps silent by default; a listener gets both', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const resolved = resolveEnvironmentOptions({}, {});
      const event = { kind: 'end', step: 'go build', elapsedMs: 3100, message: 'done' } as const;
      resolved.startProgress(event);
      expect(write).not.toHaveBeenCalled();
      resolved.buildProgress(event);
      expect(write).toHaveBeenCalledWith('[k-envtest] go build: done (3.1s)\n');
    } finally {
      write.mockRestore();
    }
    const events: string[] = [];
    const listener = resolveEnvironmentOptions(
      { onProgress: (event) => events.push(event.step) },
      {},
    );
    listener.buildProgress({ kind: 'info', step: 'a', elapsedMs: 0, message: '' });
    listener.startProgress({ kind: 'info', step: 'b', elapsedMs: 0, message: '' });
    expect(events).toEqual(['a', 'b']);
    expect(
      formatProgressLine({ kind: 'heartbeat', step: 'go build', elapsedMs: 245_000, message: 'x' }),
    ).toBe('[k-envtest] go build: x (4m05s)');
  });

  it.each([
    [{ nodes: -1 }, /nodes must be a whole number/],
    [{ nodes: 1.5 }, /nodes must be a whole number/],
    [{ nodes: '2' }, /nodes must be a whole number of 0 or more, got a string/],
    [{ binaries: 'dir' }, /binaries must be 'auto', 'cache' or \{ directory/],
    [{ binaries: { directory: '' } }, /binaries must be/],
    [{ binaries: { directory: '/d', extra: 1 } }, /binaries must be/],
    [{ build: 'yes' }, /build must be true or false/],
    [{ controllerManager: 1 }, /controllerManager must be true or false/],
    [{ cacheRoot: '' }, /cacheRoot must be a directory path/],
    [{ timeoutMs: 0 }, /timeoutMs must be a number of milliseconds above 0/],
    [{ stopGraceMs: Number.POSITIVE_INFINITY }, /stopGraceMs must be/],
    [{ extraApiServerFlags: '--v=4' }, /extraApiServerFlags must be an array of strings/],
    [{ extraEtcdFlags: [1] }, /extraEtcdFlags must be an array of strings/],
    [{ crds: [] }, /crds must be an object/],
    [{ onProgress: 'stderr' }, /onProgress must be a function/],
    [{ nodez: 1 }, /unknown option "nodez"; the options are binaries, build/],
    [{ own: true }, /own is an option of the test runners/],
    [{ reuse: false }, /reuse is an option of the test runners/],
  ])('refuses %j', (options, message) => {
    const error = refusal(() =>
      resolveEnvironmentOptions(options as unknown as EnvironmentOptions, {}),
    );
    expect(error.code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
    expect(error.message).toMatch(message);
  });

  it('never echoes what a refused option holds', () => {
    const error = refusal(() =>
      resolveEnvironmentOptions(
        { cacheRoot: 42 as unknown as string, build: 'hunter2' as unknown as boolean },
        {},
      ),
    );
    expect(error.message).not.toContain('hunter2');
    expect(
      refusal(() => resolveEnvironmentOptions(null as unknown as EnvironmentOptions)).code,
    ).toBe('ERR_ENVTEST_INVALID_OPTIONS');
  });
});

describe('planComponents', () => {
  const none = { controllerManager: undefined, scheduler: undefined, nodes: undefined };

  it('runs what the binaries have: every component and 2 nodes from the cache', () => {
    expect(planComponents(none, ALL, 'the cache')).toEqual({
      controllerManager: true,
      scheduler: true,
      nodes: 2,
    });
  });

  it('runs apiserver and etcd only from a directory without the controllers, and no nodes', () => {
    expect(planComponents(none, DIRECTORY_ONLY, 'the directory /d')).toEqual({
      controllerManager: false,
      scheduler: false,
      nodes: 0,
    });
  });

  it('gives no default nodes without the scheduler (nothing would place Pods)', () => {
    expect(planComponents({ ...none, scheduler: false }, ALL, 'x').nodes).toBe(0);
    expect(planComponents({ ...none, scheduler: false, nodes: 1 }, ALL, 'x').nodes).toBe(1);
  });

  it.each([
    [{ controllerManager: true }, 'kube-controller-manager', 'controllerManager: false'],
    [{ scheduler: true }, 'kube-scheduler', 'scheduler: false'],
    [{ nodes: 1 }, 'kwok (for nodes: 1)', 'nodes: 0'],
  ])(
    'refuses %j the binaries lack, naming it, the source and the ways out',
    (asked, component, way) => {
      const error = refusal(() =>
        planComponents({ ...none, ...asked }, DIRECTORY_ONLY, 'the directory /assets'),
      );
      expect(error.code).toBe('ERR_ENVTEST_COMPONENT_UNAVAILABLE');
      expect(error.message).toContain(component);
      expect(error.message).toContain('the directory /assets');
      expect(error.message).toContain(way);
      expect(error.message).toContain('npx k-envtest build');
    },
  );
});
