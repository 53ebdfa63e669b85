import { describe, expect, it } from 'vitest';
import { EnvtestError } from './errors.js';
import type { EnvironmentContext } from './internal/context.js';
import type { TestUser } from './types.js';
import { createServiceAccountUser, createUser } from './users.js';

// Invalid options are refused before anything is made: no certificate, no request. The context
// and admin here would fail any use, which proves nothing was attempted.
const context = {} as EnvironmentContext;
const admin = {
  clientset: () => Promise.reject(new Error('no request should be sent')),
} as unknown as TestUser;

describe('createUser options', () => {
  it.each([
    [
      { rules: [{ verbs: ['get'], resources: ['pods'] }], clusterRole: 'view' },
      'one of rules, role and clusterRole',
    ],
    [{ role: 'reader' }, 'needs the namespace of that Role'],
    [{ name: ' ' }, 'non-empty name'],
    [{ rules: [] }, 'at least one rule'],
  ])('refuses %j', async (options, message) => {
    const error = await createUser(context, admin, options).catch((caught: unknown) => caught);
    expect(EnvtestError.isInstance(error) && error.code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
    expect((error as Error).message).toContain(message);
  });
});

describe('createServiceAccountUser options', () => {
  it.each([
    [{ namespace: '', name: 'operator' }, 'needs a namespace and a name'],
    [{ namespace: 'ns', name: 'operator', expirationSeconds: 60 }, 'at least 600'],
  ])('refuses %j', async (options, message) => {
    const error = await createServiceAccountUser(context, admin, options).catch(
      (caught: unknown) => caught,
    );
    expect(EnvtestError.isInstance(error) && error.code).toBe('ERR_ENVTEST_INVALID_OPTIONS');
    expect((error as Error).message).toContain(message);
  });
});
