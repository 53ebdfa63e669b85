import { describe, expect, it } from 'vitest';
import { createTransport } from '../src/index.js';
import { resolvedContext, whoAmI } from './support/cluster.js';

describe('impersonation verified by the real API server', () => {
  it('acts as a user with uid, two groups and an escaped extra key (SelfSubjectReview)', async () => {
    const admin = await resolvedContext('admin');
    const transport = createTransport({
      ...admin,
      impersonation: {
        user: 'jane',
        uid: 'uid-1234',
        groups: ['developers', 'system:authenticated'],
        extra: new Map([
          ['example.com/team', ['platform', 'storage']],
          ['scopes', ['read write']],
        ]),
      },
    });
    try {
      expect(await whoAmI(transport)).toEqual({
        username: 'jane',
        uid: 'uid-1234',
        groups: ['developers', 'system:authenticated'],
        extra: { 'example.com/team': ['platform', 'storage'], scopes: ['read write'] },
      });
    } finally {
      await transport.close();
    }
  });
});
