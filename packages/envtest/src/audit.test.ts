import { appendFile, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvironmentAuditLog, matches } from './audit.js';
import { EnvtestError } from './errors.js';
import type { AuditRecord } from './types.js';

// A log in kube-apiserver's format (JSON lines, Metadata level, no RequestReceived stage),
// written by the test: one line per request, two for a watch (started, then complete).
const dir = await mkdtemp(path.join(tmpdir(), 'k-envtest-audit-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

let sequence = 0;
function line(fields: {
  verb: string;
  resource?: string;
  subresource?: string;
  apiGroup?: string;
  name?: string;
  code?: number;
  userAgent?: string;
  user?: string;
  stage?: string;
  auditID?: string;
}): string {
  const auditID =
    fields.auditID ?? `00000000-0000-0000-0000-${String(++sequence).padStart(12, '0')}`;
  return `${JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID,
    stage: fields.stage ?? 'ResponseComplete',
    requestURI: `/api/v1/namespaces/audit/${fields.resource ?? 'configmaps'}`,
    verb: fields.verb,
    user: { username: fields.user ?? 'tester', groups: ['system:authenticated'] },
    userAgent: fields.userAgent ?? 'unit/1',
    objectRef: {
      resource: fields.resource ?? 'configmaps',
      ...(fields.subresource ? { subresource: fields.subresource } : {}),
      ...(fields.apiGroup ? { apiGroup: fields.apiGroup } : {}),
      namespace: 'audit',
      ...(fields.name ? { name: fields.name } : {}),
      apiVersion: 'v1',
    },
    responseStatus: { metadata: {}, code: fields.code ?? 200 },
    requestReceivedTimestamp: '2026-12-07T16:20:00.000000Z',
    stageTimestamp: '2026-12-07T16:20:00.001000Z',
  })}\n`;
}

let files = 0;
async function logWith(...lines: string[]): Promise<EnvironmentAuditLog> {
  const file = path.join(dir, `audit-${++files}.log`);
  await writeFile(file, lines.join(''));
  return new EnvironmentAuditLog(file);
}

describe('EnvironmentAuditLog', () => {
  it('returns from a mark on only the requests logged after it', async () => {
    const audit = await logWith(line({ verb: 'create', name: 'before' }));
    const mark = await audit.mark();
    await appendFile(audit.path, line({ verb: 'get', name: 'after' }) + line({ verb: 'list' }));
    expect((await audit.records({ since: mark })).map((record) => record.verb)).toEqual([
      'get',
      'list',
    ]);
    expect((await audit.records()).map((record) => record.verb)).toEqual(['create', 'get', 'list']);
  });

  it('does not count a watch that started before the mark and ended after it', async () => {
    const watch = '11111111-0000-0000-0000-000000000001';
    const audit = await logWith(line({ verb: 'watch', stage: 'ResponseStarted', auditID: watch }));
    const mark = await audit.mark();
    await appendFile(
      audit.path,
      line({ verb: 'watch', stage: 'ResponseComplete', auditID: watch }) + line({ verb: 'get' }),
    );
    // A fresh log object starts reading at the mark: it never saw the watch start.
    const fresh = new EnvironmentAuditLog(audit.path);
    for (const log of [audit, fresh]) {
      expect((await log.records({ since: mark })).map((record) => record.verb)).toEqual(['get']);
    }
    expect(await audit.records({ verb: 'watch' })).toMatchObject([
      { stage: 'ResponseComplete', code: 200 },
    ]);
  });

  it('reads only what was appended since its last read', async () => {
    const audit = await logWith(line({ verb: 'create', name: 'first' }));
    const mark = await audit.mark();
    expect(await audit.records()).toHaveLength(1);
    // Overwrite the old bytes in place with another valid event: a reader that went back over
    // them would now report "planted".
    const first = line({ verb: 'create', name: 'first' });
    const planted = JSON.stringify({
      auditID: 'planted',
      stage: 'ResponseComplete',
      verb: 'delete',
      requestURI: '/',
    });
    const handle = await open(audit.path, 'r+');
    await handle.write(planted.padEnd(first.length - 1, ' '), 0);
    await handle.close();
    await appendFile(audit.path, line({ verb: 'get', name: 'second' }));
    expect((await audit.records()).map((record) => record.name)).toEqual(['first', 'second']);
    expect((await audit.records({ since: mark })).map((record) => record.name)).toEqual(['second']);
    expect(
      (await new EnvironmentAuditLog(audit.path).records()).map((record) => record.auditID),
    ).toContain('planted');
  });

  it('gives empty fields as undefined, and a missing log as empty', async () => {
    const audit = await logWith(line({ verb: 'get', stage: 'ResponseStarted', code: 0 }));
    expect(await audit.records()).toMatchObject([
      {
        name: undefined,
        subresource: undefined,
        apiGroup: undefined,
        impersonatedUser: undefined,
        code: undefined,
      },
    ]);
    const missing = new EnvironmentAuditLog(path.join(dir, 'missing.log'));
    expect(await missing.mark()).toEqual({ offset: 0 });
    expect(await missing.records()).toEqual([]);
  });

  it('waitFor counts, then reads once more after settling, so a surplus shows', async () => {
    const audit = await logWith();
    const mark = await audit.mark();
    const waiting = audit.waitFor({ since: mark, verb: 'create' }, 1, { settleMs: 300 });
    await appendFile(audit.path, line({ verb: 'create', name: 'one' }));
    setTimeout(() => void appendFile(audit.path, line({ verb: 'create', name: 'two' })), 150);
    expect((await waiting).map((record) => record.name)).toEqual(['one', 'two']);
  });

  it('waitFor throws ERR_ENVTEST_TIMEOUT naming the query and what it found', async () => {
    const audit = await logWith(line({ verb: 'get' }));
    const error = await audit
      .waitFor({ verb: /^(create|update)$/, userAgent: 'unit/1' }, 2, { timeoutMs: 150 })
      .catch((caught: unknown) => caught);
    expect(EnvtestError.isInstance(error) && error.code).toBe('ERR_ENVTEST_TIMEOUT');
    expect((error as Error).message).toContain(
      'expected at least 2 audit records matching {"verb":"/^(create|update)$/","userAgent":"unit/1"}',
    );
    expect((error as Error).message).toContain('found 0');
  });

  it('refuses a since that is not a mark, and a count that is not a whole number', async () => {
    const audit = await logWith();
    await expect(audit.records({ since: { offset: -1 } })).rejects.toMatchObject({
      code: 'ERR_ENVTEST_INVALID_OPTIONS',
    });
    await expect(audit.waitFor({}, 1.5)).rejects.toMatchObject({
      code: 'ERR_ENVTEST_INVALID_OPTIONS',
    });
  });
});

describe('matches', () => {
  const record: AuditRecord = {
    auditID: 'a',
    stage: 'ResponseComplete',
    user: 'system:serviceaccount:ns:operator',
    groups: [],
    impersonatedUser: undefined,
    impersonatedGroups: [],
    userAgent: 'my-operator/1.0 (linux/amd64)',
    verb: 'patch',
    requestURI: '/apis/apps/v1/namespaces/ns/deployments/web/status',
    resource: 'deployments',
    subresource: 'status',
    apiGroup: 'apps',
    namespace: 'ns',
    name: 'web',
    code: 200,
    receivedAt: 0,
  };

  it('compares strings exactly and searches with regular expressions', () => {
    expect(
      matches(record, { userAgent: /my-operator/, apiGroup: 'apps', subresource: 'status' }),
    ).toBe(true);
    expect(matches(record, { userAgent: 'my-operator' })).toBe(false);
    expect(matches(record, { user: /^system:serviceaccount:ns:/ })).toBe(true);
  });

  it('keeps no state between records for a global RegExp', () => {
    const global = /web/g;
    expect(matches(record, { name: global })).toBe(true);
    expect(matches(record, { name: global })).toBe(true);
  });

  it('matches no value against a field the record lacks', () => {
    expect(matches(record, { impersonatedUser: /.*/ })).toBe(false);
  });

  it('filters by code and by writes', () => {
    expect(matches(record, { code: 200, writes: true })).toBe(true);
    expect(matches(record, { code: 201 })).toBe(false);
    for (const verb of ['get', 'list', 'watch']) {
      expect(matches({ ...record, verb }, { writes: true })).toBe(false);
      expect(matches({ ...record, verb }, { writes: false })).toBe(true);
    }
    for (const verb of ['create', 'update', 'patch', 'delete', 'deletecollection']) {
      expect(matches({ ...record, verb }, { writes: true })).toBe(true);
    }
  });
});
