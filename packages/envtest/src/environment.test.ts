import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectEnvironment, startEnvironment } from './environment.js';
import { EnvtestError } from './errors.js';
import type { EnvironmentOptions } from './types.js';

function refusal(action: () => unknown): EnvtestError {
  try {
    action();
  } catch (error) {
    if (EnvtestError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('connectEnvironment', () => {
  it('is ERR_ENVTEST_NOT_RUNNING without a path or variable, naming k-envtest’s ways to start one', () => {
    const saved = process.env.K_ENVTEST_KUBECONFIG;
    delete process.env.K_ENVTEST_KUBECONFIG;
    try {
      const error = refusal(() => connectEnvironment());
      expect(error.code).toBe('ERR_ENVTEST_NOT_RUNNING');
      expect(error.message).toContain('K_ENVTEST_KUBECONFIG is not set');
      expect(error.message).toContain('npx k-envtest run');
      expect(error.message).not.toMatch(/k-testenv/);
    } finally {
      if (saved !== undefined) process.env.K_ENVTEST_KUBECONFIG = saved;
    }
  });

  it('is ERR_ENVTEST_NOT_RUNNING for a kubeconfig without a plane beside it', () => {
    const kubeconfigPath = path.join(import.meta.dirname, 'no-such-dir', 'kubeconfig');
    const error = refusal(() => connectEnvironment(kubeconfigPath));
    expect(error.code).toBe('ERR_ENVTEST_NOT_RUNNING');
    expect(error.message).toContain(kubeconfigPath);
    expect(error.message).not.toMatch(/k-testenv (up|build)/);
  });
});

describe('startEnvironment', () => {
  it('refuses bad options before anything starts', async () => {
    await expect(startEnvironment({ nodes: -1 })).rejects.toMatchObject({
      code: 'ERR_ENVTEST_INVALID_OPTIONS',
    });
    await expect(
      startEnvironment({ own: true } as unknown as EnvironmentOptions),
    ).rejects.toMatchObject({ code: 'ERR_ENVTEST_INVALID_OPTIONS' });
  });

  it('reads the CRDs before anything starts: a missing path fails at once', async () => {
    const missing = path.join(import.meta.dirname, 'no-such-crds');
    await expect(startEnvironment({ crds: { paths: [missing] } })).rejects.toMatchObject({
      code: 'ERR_ENVTEST_CRD_PATH_MISSING',
    });
  });
});
