import { appendFile, copyFile, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AuditLogReader,
  permissionOf,
  readAuditLog,
  readAuditLogFrom,
  waitForAuditRecords,
} from './audit-log.js';

// __fixtures__/audit.log: six lines in kube-apiserver's JSON format (Metadata level, no
// RequestReceived stage): a create, a watch's ResponseStarted, a get, a status patch by another
// user, the watch's ResponseComplete, and a non-resource /readyz.
const FIXTURE = new URL('./__fixtures__/audit.log', import.meta.url);
const fixture = await readFile(FIXTURE, 'utf8');
const fixtureLines = fixture.split('\n').filter((line) => line !== '');
const dir = await mkdtemp(join(tmpdir(), 'k-testenv-audit-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

let files = 0;
/** logWith writes `lines` (each ending in a newline) to a fresh file and returns its path. */
async function logWith(lines: readonly string[]): Promise<string> {
  const path = join(dir, `audit-${++files}.log`);
  await writeFile(path, lines.map((line) => `${line}\n`).join(''));
  return path;
}
/** offsetAfter is the byte offset just after the first `count` fixture lines. */
const offsetAfter = (count: number) =>
  fixtureLines.slice(0, count).reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);

describe('readAuditLog', () => {
  it('returns one record per request, stages merged, in the order first logged', async () => {
    const path = join(dir, 'whole.log');
    await copyFile(FIXTURE, path);
    const records = await readAuditLog(path);
    expect(records.map((record) => [record.verb, record.name, record.stage, record.code])).toEqual([
      ['create', 'counted', 'ResponseComplete', 201],
      ['watch', '', 'ResponseComplete', 200],
      ['get', 'counted', 'ResponseComplete', 200],
      ['patch', 'web', 'ResponseComplete', 200],
      ['get', '', 'ResponseComplete', 200],
    ]);
    expect(records[3]).toMatchObject({
      user: 'admin',
      apiGroup: 'apps',
      resource: 'deployments',
      subresource: 'status',
      namespace: 'audit-fixture',
      userAgent: 'operator/2',
      receivedAt: Date.parse('2026-12-07T16:20:00.400Z'),
    });
    expect(permissionOf(records[3]!)).toBe('patch deployments/status');
    expect(records[4]).toMatchObject({ requestURI: '/readyz', resource: '', namespace: '' });
  });

  it('filters by exact strings and regular expressions, the new subresource and apiGroup fields too', async () => {
    const path = await logWith(fixtureLines);
    expect(await readAuditLog(path, { user: 'tester', verb: /^(get|watch)$/ })).toHaveLength(2);
    expect(await readAuditLog(path, { apiGroup: 'apps', subresource: 'status' })).toHaveLength(1);
    expect(await readAuditLog(path, { userAgent: /^never/ })).toEqual([]);
  });

  it('reads a missing file as empty', async () => {
    expect(await readAuditLog(join(dir, 'missing.log'))).toEqual([]);
    expect(await readAuditLogFrom(join(dir, 'missing.log'), {}, { fromOffset: 7 })).toEqual({
      records: [],
      nextOffset: 7,
    });
  });
});

describe('readAuditLogFrom', () => {
  it('reads only from the offset on and says where the next read starts', async () => {
    const path = await logWith(fixtureLines.slice(0, 3));
    const first = await readAuditLogFrom(path);
    expect(first.records.map((record) => record.verb)).toEqual(['create', 'watch', 'get']);
    expect(first.nextOffset).toBe(offsetAfter(3));

    await appendFile(path, `${fixtureLines.slice(3).join('\n')}\n`);
    const second = await readAuditLogFrom(path, {}, { fromOffset: first.nextOffset });
    // The watch's second line is in this window, so the watch shows here with its latest stage.
    expect(second.records.map((record) => [record.verb, record.stage])).toEqual([
      ['patch', 'ResponseComplete'],
      ['watch', 'ResponseComplete'],
      ['get', 'ResponseComplete'],
    ]);
    expect(second.nextOffset).toBe(Buffer.byteLength(fixture));
  });

  it('does not reread bytes before the offset', async () => {
    const path = await logWith(fixtureLines);
    const { nextOffset } = await readAuditLogFrom(path, {}, { fromOffset: 0 });
    // Replace the first line in place by another valid event of the same length: a reader that
    // went back over old bytes would now report it.
    const planted = JSON.stringify({
      auditID: 'planted',
      stage: 'ResponseComplete',
      verb: 'delete',
      requestURI: '/x',
    });
    const handle = await open(path, 'r+');
    await handle.write(planted.padEnd(Buffer.byteLength(fixtureLines[0]!), ' '), 0);
    await handle.close();
    expect((await readAuditLog(path)).map((record) => record.auditID)).toContain('planted');
    const later = await readAuditLogFrom(path, {}, { fromOffset: offsetAfter(1) });
    expect(later.records.map((record) => record.auditID)).not.toContain('planted');
    expect(later.records).toHaveLength(4);
    const reader = new AuditLogReader(path, { fromOffset: nextOffset });
    await appendFile(path, `${fixtureLines[0]}\n`);
    await reader.read();
    expect(reader.records().map((record) => record.auditID)).toEqual([
      '6b1f0c38-0d4e-4b39-9d53-0c7b3a1f2e01',
    ]);
  });
});

describe('AuditLogReader', () => {
  it('merges a ResponseComplete that arrives in a later read into the record of the first', async () => {
    const path = await logWith(fixtureLines.slice(0, 2));
    const reader = new AuditLogReader(path);
    await reader.read();
    expect(reader.records({ verb: 'watch' })).toMatchObject([{ stage: 'ResponseStarted' }]);
    await appendFile(path, `${fixtureLines[4]}\n`);
    expect(await reader.read()).toBe(offsetAfter(2) + Buffer.byteLength(fixtureLines[4]!) + 1);
    expect(reader.records({ verb: 'watch' })).toMatchObject([
      { stage: 'ResponseComplete', code: 200 },
    ]);
    expect(reader.records()).toHaveLength(2);
  });

  it('leaves a line still being written for the next read', async () => {
    const path = await logWith(fixtureLines.slice(0, 1));
    const half = Math.floor(fixtureLines[1]!.length / 2);
    await appendFile(path, fixtureLines[1]!.slice(0, half));
    const reader = new AuditLogReader(path);
    expect(await reader.read()).toBe(offsetAfter(1));
    expect(reader.records()).toHaveLength(1);
    await appendFile(path, `${fixtureLines[1]!.slice(half)}\n`);
    expect(await reader.read()).toBe(offsetAfter(2));
    expect(reader.records().map((record) => record.verb)).toEqual(['create', 'watch']);
  });

  it('reads lines longer than its chunk, and skips a line longer than its bound', async () => {
    const overlong = JSON.stringify({
      auditID: 'overlong',
      stage: 'ResponseComplete',
      verb: 'get',
      requestURI: `/${'x'.repeat(4000)}`,
    });
    const path = await logWith([fixtureLines[0]!, overlong, ...fixtureLines.slice(1)]);
    const reader = new AuditLogReader(path, { chunkBytes: 64, maxLineBytes: 2048 });
    expect(await reader.read()).toBe(Buffer.byteLength(fixture) + overlong.length + 1);
    expect(reader.records().map((record) => record.auditID)).toEqual(
      (await readAuditLog(FIXTURE.pathname)).map((record) => record.auditID),
    );
  });

  it('counts with since only requests that started after the offset', async () => {
    const path = await logWith(fixtureLines.slice(0, 2));
    const reader = new AuditLogReader(path);
    const mark = await reader.read();
    await appendFile(
      path,
      fixtureLines
        .slice(2)
        .map((line) => `${line}\n`)
        .join(''),
    );
    await reader.read();
    // The watch started before the mark and completed after it: not a request since the mark.
    expect(reader.records({}, { since: mark }).map((record) => record.verb)).toEqual([
      'get',
      'patch',
      'get',
    ]);
    // A reader that starts at the mark never saw the watch start, and still leaves it out.
    const fromMark = new AuditLogReader(path, { fromOffset: mark });
    await fromMark.read();
    expect(fromMark.records({}, { since: mark })).toEqual(reader.records({}, { since: mark }));
    // Without since, the window's records, the watch's completion included.
    expect(fromMark.records().map((record) => record.verb)).toEqual([
      'get',
      'patch',
      'watch',
      'get',
    ]);
  });

  it('runs concurrent reads one after the other', async () => {
    const path = await logWith(fixtureLines);
    const reader = new AuditLogReader(path, { chunkBytes: 100 });
    const offsets = await Promise.all([reader.read(), reader.read(), reader.read()]);
    expect(offsets).toEqual([fixture.length, fixture.length, fixture.length]);
    expect(reader.records()).toHaveLength(5);
  });
});

describe('waitForAuditRecords', () => {
  it('waits until enough records match, then reads once more after settling', async () => {
    const path = await logWith([]);
    const waiting = waitForAuditRecords(path, { userAgent: 'fixture/1' }, 2, {
      timeoutMs: 5000,
      settleMs: 200,
    });
    await appendFile(path, `${fixtureLines.slice(0, 2).join('\n')}\n`);
    setTimeout(() => void appendFile(path, `${fixtureLines[2]}\n`), 50);
    const records = await waiting;
    expect(records.map((record) => record.verb)).toEqual(['create', 'watch', 'get']);
  });

  it('throws naming the filter and the count found at the timeout', async () => {
    const path = await logWith(fixtureLines);
    await expect(
      waitForAuditRecords(path, { userAgent: /^fixture\// }, 9, { timeoutMs: 200 }),
    ).rejects.toThrow(/^expected 9 audit records matching \{"userAgent":"\/\^fixture.* found 3$/);
  });
});
