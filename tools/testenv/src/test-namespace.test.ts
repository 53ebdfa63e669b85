import { describe, expect, it } from 'vitest';
import { ControlPlaneError } from './errors.js';
import { connectionFromEnvironment, uniqueNamespaceName } from './test-namespace.js';

describe('uniqueNamespaceName', () => {
  it('is a DNS label that starts with the cleaned prefix', () => {
    const name = uniqueNamespaceName('My Test_Suite!');
    expect(name).toMatch(/^my-test-suite-[0-9a-f]{8}$/);
    expect(uniqueNamespaceName('x'.repeat(200)).length).toBeLessThanOrEqual(63);
    expect(uniqueNamespaceName('---')).toMatch(/^test-[0-9a-f]{8}$/);
  });

  it('does not repeat', () => {
    const names = new Set(Array.from({ length: 200 }, () => uniqueNamespaceName()));
    expect(names.size).toBe(200);
  });
});

describe('connectionFromEnvironment', () => {
  it('says how to get a control plane when K_TESTENV_KUBECONFIG is unset or foreign', () => {
    expect(() => connectionFromEnvironment({})).toThrow(/K_TESTENV_KUBECONFIG is not set/);
    const error = (() => {
      try {
        connectionFromEnvironment({ K_TESTENV_KUBECONFIG: '/nonexistent/kubeconfig' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(ControlPlaneError.isInstance(error) && error.code).toBe('NOT_RUNNING');
  });
});
