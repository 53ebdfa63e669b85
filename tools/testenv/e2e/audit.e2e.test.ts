import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readAuditLog, waitForAuditRecords } from '../src/audit-log.js';
import { kubeRequest } from '../src/kube-request.js';
import { controlPlane, useTestNamespace } from '../src/vitest.js';

// Against the shared control plane: other tests write to the same audit log at the same time, so
// the requests of this test are told apart by their user agent.
describe('the audit log', () => {
  const namespace = useTestNamespace({ prefix: 'audit' });

  it('counts exactly the requests this test sent, with user, verb, resource and code', async () => {
    const { server, caPem, users, auditLogPath } = controlPlane();
    const userAgent = `audit-test/${randomBytes(4).toString('hex')}`;
    const startedAt = Date.now();
    const send = (path: string, init: { method?: string; body?: unknown } = {}) =>
      kubeRequest({ server, caPem, credentials: users.tester, userAgent, path, ...init });
    const configMaps = `/api/v1/namespaces/${namespace.name}/configmaps`;
    expect(
      (
        await send(configMaps, {
          method: 'POST',
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counted' } },
        })
      ).status,
    ).toBe(201);
    expect((await send(`${configMaps}/counted`)).status).toBe(200);
    expect((await send(`${configMaps}/counted`)).status).toBe(200);
    expect((await send(configMaps)).status).toBe(200);
    expect((await send(`${configMaps}/missing`)).status).toBe(404);

    const records = await waitForAuditRecords(auditLogPath, { userAgent }, 5);
    expect(records).toHaveLength(5);
    expect(records.map((record) => [record.verb, record.name, record.code])).toEqual([
      ['create', 'counted', 201],
      ['get', 'counted', 200],
      ['get', 'counted', 200],
      ['list', '', 200],
      ['get', 'missing', 404],
    ]);
    for (const record of records) {
      expect(record).toMatchObject({
        user: 'tester',
        resource: 'configmaps',
        namespace: namespace.name,
        stage: 'ResponseComplete',
      });
    }
    // In the order received, each within this test's run (the server's clock is this machine's).
    const received = records.map((record) => record.receivedAt);
    expect(received).toEqual([...received].sort((a, b) => a - b));
    expect(received[0]).toBeGreaterThanOrEqual(startedAt - 1000);
    expect(received.at(-1)).toBeLessThanOrEqual(Date.now());
    expect(await readAuditLog(auditLogPath, { userAgent, verb: 'get' })).toHaveLength(3);
    expect(await readAuditLog(auditLogPath, { userAgent: /^audit-test\/never-sent/ })).toEqual([]);
  });
});
