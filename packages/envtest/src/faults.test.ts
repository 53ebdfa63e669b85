import { ControlPlaneError } from '@k/testenv';
import { describe, expect, it } from 'vitest';
import { EnvtestError } from './errors.js';
import { ownedFaults, type EngineFaults } from './faults.js';
import type { ComponentName } from './types.js';

/** engine records the calls a fake engine plane gets; `failWith` makes every call throw it. */
function engine(failWith?: Error): EngineFaults & { calls: string[] } {
  const calls: string[] = [];
  const call = (name: string) => (component: ComponentName) => {
    calls.push(`${name} ${component}`);
    return failWith === undefined ? Promise.resolve() : Promise.reject(failWith);
  };
  return {
    calls,
    restart: call('restart'),
    stopComponent: call('stopComponent'),
    startComponent: call('startComponent'),
    compactEtcd: () => {
      calls.push('compactEtcd');
      return failWith === undefined ? Promise.resolve(42) : Promise.reject(failWith);
    },
  };
}

const running: ComponentName[] = ['etcd', 'kube-apiserver'];

async function rejection(promise: Promise<unknown>): Promise<EnvtestError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!EnvtestError.isInstance(error))
    throw new Error(`expected an EnvtestError, got ${String(error)}`);
  return error;
}

describe('ownedFaults', () => {
  it('passes restart, stop, start and compact of a running component to the engine', async () => {
    const plane = engine();
    const faults = ownedFaults(plane, running);
    await faults.restart('kube-apiserver');
    await faults.stopComponent('etcd');
    await faults.startComponent('etcd');
    expect(await faults.compactEtcd()).toBe(42);
    expect(plane.calls).toEqual([
      'restart kube-apiserver',
      'stopComponent etcd',
      'startComponent etcd',
      'compactEtcd',
    ]);
  });

  it('refuses a component the plane does not run, naming what it runs, without calling the engine', async () => {
    const plane = engine();
    const error = await rejection(ownedFaults(plane, running).restart('kwok'));
    expect(error.code).toBe('ERR_ENVTEST_COMPONENT_UNAVAILABLE');
    expect(error.message).toBe(
      'restart: this plane does not run kwok (it runs etcd, kube-apiserver)',
    );
    expect(plane.calls).toEqual([]);
  });

  it('refuses a name that is no component (plain JavaScript callers)', async () => {
    const error = await rejection(
      ownedFaults(engine(), running).stopComponent('kube-proxy' as ComponentName),
    );
    expect(error.code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
    expect(error.message).toContain('"kube-proxy" is not a component');
  });

  it('turns engine errors into EnvtestErrors, the original kept as cause', async () => {
    const original = new ControlPlaneError('READY_TIMEOUT', 'kube-apiserver was not ready', {
      step: 'start kube-apiserver',
    });
    const faults = ownedFaults(engine(original), running);
    const restart = await rejection(faults.restart('kube-apiserver'));
    expect(restart.code).toBe('ERR_ENVTEST_READY_TIMEOUT');
    expect(restart.cause).toBe(original);
    expect((await rejection(faults.compactEtcd())).code).toBe('ERR_ENVTEST_READY_TIMEOUT');
  });
});
