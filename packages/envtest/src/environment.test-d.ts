import type { Clientset } from '@k/clientset';
import { describe, expectTypeOf, it } from 'vitest';
import { useEnvironment as useNodeTestEnvironment } from './node-test.js';
import {
  connectEnvironment,
  eventually,
  startEnvironment,
  type CrdSource,
  type Environment,
  type EnvironmentOptions,
  type OwnedEnvironment,
  type TestCluster,
} from './index.js';
import { useEnvironment } from './vitest/index.js';

describe('Environment and OwnedEnvironment', () => {
  it('keep the faults and stop() to an owned plane', () => {
    expectTypeOf<Environment>().not.toHaveProperty('restart');
    expectTypeOf<Environment>().not.toHaveProperty('stop');
    expectTypeOf<Environment>().not.toHaveProperty('compactEtcd');
    expectTypeOf<Environment>().not.toHaveProperty('runDir');
    expectTypeOf<OwnedEnvironment>().toHaveProperty('restart');
    expectTypeOf<OwnedEnvironment['stop']>().toEqualTypeOf<() => Promise<void>>();
    expectTypeOf<OwnedEnvironment>().toExtend<Environment>();
    expectTypeOf<Environment>().toExtend<TestCluster>();
    expectTypeOf<Environment>().toExtend<AsyncDisposable>();
  });

  it('start and connect give the right one', () => {
    expectTypeOf(startEnvironment).returns.toEqualTypeOf<Promise<OwnedEnvironment>>();
    expectTypeOf(connectEnvironment).returns.toEqualTypeOf<Environment>();
    expectTypeOf(connectEnvironment).parameters.toEqualTypeOf<[kubeconfigPath?: string]>();
    expectTypeOf<ReturnType<Environment['admin']['clientset']>>().toEqualTypeOf<
      Promise<Clientset>
    >();
  });
});

describe('options', () => {
  it('accept undefined in every optional field (exactOptionalPropertyTypes users)', () => {
    const options = {
      binaries: undefined,
      build: undefined,
      cacheRoot: undefined,
      controllerManager: undefined,
      scheduler: undefined,
      nodes: undefined,
      extraApiServerFlags: undefined,
      extraControllerManagerFlags: undefined,
      extraSchedulerFlags: undefined,
      extraEtcdFlags: undefined,
      extraKwokFlags: undefined,
      crds: undefined,
      timeoutMs: undefined,
      stopGraceMs: undefined,
      onProgress: undefined,
    } satisfies EnvironmentOptions;
    expectTypeOf(options).toExtend<EnvironmentOptions>();
    expectTypeOf<keyof typeof options>().toEqualTypeOf<keyof EnvironmentOptions>();
    const crds = {
      paths: undefined,
      objects: undefined,
      errorIfPathMissing: undefined,
      timeoutMs: undefined,
      conversion: undefined,
    } satisfies CrdSource;
    expectTypeOf(crds).toExtend<CrdSource>();
    expectTypeOf<keyof typeof crds>().toEqualTypeOf<keyof CrdSource>();
  });

  it('binaries is auto, cache or a directory', () => {
    expectTypeOf<{ binaries: 'cache' }>().toExtend<EnvironmentOptions>();
    expectTypeOf<{ binaries: { directory: string } }>().toExtend<EnvironmentOptions>();
    expectTypeOf<{ binaries: 'kubebuilder' }>().not.toExtend<EnvironmentOptions>();
  });
});

describe('useEnvironment', () => {
  it('gives a shared Environment without options and an OwnedEnvironment with own: true', () => {
    expectTypeOf(useEnvironment()).toEqualTypeOf<Environment>();
    expectTypeOf(useEnvironment({ own: true, nodes: 0 })).toEqualTypeOf<OwnedEnvironment>();
    expectTypeOf(useNodeTestEnvironment()).toEqualTypeOf<Environment>();
    expectTypeOf(useNodeTestEnvironment({ own: true })).toEqualTypeOf<OwnedEnvironment>();
    // @ts-expect-error own: false is no overload: omit the options for the shared plane.
    useEnvironment({ own: false });
  });
});

describe('eventually', () => {
  it('resolves with the check’s value, awaited', () => {
    expectTypeOf(eventually(() => 1)).toEqualTypeOf<Promise<number>>();
    expectTypeOf(eventually(() => Promise.resolve('x'))).toEqualTypeOf<Promise<string>>();
    expectTypeOf(eventually).parameter(0).parameters.toEqualTypeOf<[attempt: number]>();
  });
});
