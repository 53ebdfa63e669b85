import 'reflect-metadata';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { container } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import { TRANSPORT, TRANSPORT_INTERCEPTOR, registerTransport } from '../src/di.js';
import { createTransport, describeTransportStack } from '../src/index.js';
import { resolvedContext, sendJson, whoAmI } from './support/cluster.js';
import { observer, type Seen } from './support/observing-interceptor.js';

/** by picks what the interceptor `name` saw, in order. */
const by = (log: readonly Seen[], name: string) => log.filter((seen) => seen.observer === name);

describe('user interceptors against the real API server', () => {
  const namespace = useTestNamespace();

  it('see real requests and responses at the request and wire positions', async () => {
    const log: Seen[] = [];
    const transport = createTransport(await resolvedContext('tester'), {
      interceptors: [observer('outer', 'request', log), observer('inner', 'wire', log)],
    });
    try {
      expect(describeTransportStack(transport)).toBe(
        'outer → user-agent → auth → compression → inner → pool',
      );
      const list = await sendJson(
        transport,
        'GET',
        `/api/v1/namespaces/${namespace.name}/configmaps`,
      );
      expect(list.status).toBe(200);
      const missing = await sendJson(
        transport,
        'GET',
        `/api/v1/namespaces/${namespace.name}/configmaps/not-there`,
      );
      expect(missing.status).toBe(404);

      for (const name of ['outer', 'inner']) {
        const seen = by(log, name);
        expect(seen.map((entry) => [entry.method, entry.status])).toEqual([
          ['GET', 200],
          ['GET', 404],
        ]);
        // API Priority and Fairness classified both requests: the server says so in headers.
        for (const entry of seen) {
          expect(entry.responseHeaders?.['x-kubernetes-pf-flowschema-uid']).toMatch(
            /^[0-9a-f-]{36}$/,
          );
          expect(entry.responseHeaders?.['x-kubernetes-pf-prioritylevel-uid']).toMatch(
            /^[0-9a-f-]{36}$/,
          );
        }
      }
      // Credentials exist at the wire only (checked by presence; never printed).
      expect(by(log, 'outer').every((entry) => entry.headers.authorization === undefined)).toBe(
        true,
      );
      expect(
        by(log, 'inner').every(
          (entry) => entry.headers.authorization === `Bearer ${controlPlane().users.tester.token}`,
        ),
      ).toBe(true);
    } finally {
      await transport.close();
    }
  });

  it('see a rejected token as one 401 at each position (a static token is not replayed)', async () => {
    const log: Seen[] = [];
    const config = await resolvedContext('tester');
    const transport = createTransport(
      { ...config, auth: { kind: 'token', token: 'not-a-valid-token' } },
      { interceptors: [observer('outer', 'request', log), observer('inner', 'wire', log)] },
    );
    try {
      const response = await sendJson(transport, 'GET', '/api/v1/namespaces');
      expect(response.status).toBe(401);
      expect(log.map((entry) => [entry.observer, entry.status])).toEqual([
        ['outer', 401],
        ['inner', 401],
      ]);
    } finally {
      await transport.close();
    }
  });

  it('are placed by DI from TRANSPORT_INTERCEPTOR registrations', async () => {
    const log: Seen[] = [];
    const scope = container.createChildContainer();
    scope.register(TRANSPORT_INTERCEPTOR, { useValue: observer('registered', 'decorated', log) });
    registerTransport(scope, { config: await resolvedContext('tester') });
    const transport = scope.resolve(TRANSPORT);
    try {
      expect(describeTransportStack(transport)).toBe(
        'user-agent → registered → auth → compression → pool',
      );
      expect((await whoAmI(transport)).username).toBe('tester');
      expect(log.map((entry) => [entry.method, entry.path, entry.status])).toEqual([
        ['POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', 201],
      ]);
      expect(log[0]?.headers['user-agent']).toMatch(/^k\//);
      expect(log[0]?.headers.authorization).toBeUndefined();
    } finally {
      await transport.close();
    }
  });
});
