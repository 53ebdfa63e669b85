import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuditLogReader, type AuditRecord as EngineAuditRecord } from '@k/testenv';
import { EnvtestError } from './errors.js';
import type { AuditLog, AuditMark, AuditQuery, AuditRecord, AuditWaitOptions } from './types.js';

/** WRITE_VERBS are the verbs `writes: true` keeps. */
const WRITE_VERBS: ReadonlySet<string> = new Set([
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
]);
const DEFAULT_WAIT_TIMEOUT_MS = 10_000;
const DEFAULT_SETTLE_MS = 300;
const POLL_MS = 100;

type TextField = Exclude<keyof AuditQuery, 'since' | 'code' | 'writes'> & keyof AuditRecord;
const TEXT_FIELDS: readonly TextField[] = [
  'user',
  'impersonatedUser',
  'userAgent',
  'verb',
  'resource',
  'subresource',
  'apiGroup',
  'namespace',
  'name',
];

/**
 * EnvironmentAuditLog reads kube-apiserver's audit log (JSON lines at Metadata level, written before
 * each response) incrementally: it keeps one reader that reads only the bytes appended since its
 * last read, from the earliest position a query asked for, and merges each request's stages (a
 * watch logs when it starts and when it ends). A mark is the log's end at the time, so
 * `records({ since: mark })` is exactly the requests received after it. Safe for concurrent use.
 */
export class EnvironmentAuditLog implements AuditLog {
  readonly path: string;
  #reader: AuditLogReader | undefined;

  constructor(path: string) {
    this.path = path;
  }

  async mark(): Promise<AuditMark> {
    try {
      return { offset: (await stat(this.path)).size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { offset: 0 };
      throw error;
    }
  }

  async records(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const since = checkMark(query.since);
    const reader = this.#readerFrom(since ?? 0);
    await reader.read();
    return reader
      .records({}, { since })
      .map(toRecord)
      .filter((record) => matches(record, query));
  }

  async waitFor(
    query: AuditQuery,
    count: number,
    options: AuditWaitOptions = {},
  ): Promise<AuditRecord[]> {
    if (!Number.isInteger(count) || count < 0) {
      throw new EnvtestError(
        'ERR_ENVTEST_INVALID_OPTIONS',
        `audit.waitFor needs a count that is an integer of at least 0, got ${String(count)}`,
      );
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const records = await this.records(query);
      if (records.length >= count) {
        await sleep(options.settleMs ?? DEFAULT_SETTLE_MS);
        return this.records(query);
      }
      if (Date.now() > deadline) {
        throw new EnvtestError(
          'ERR_ENVTEST_TIMEOUT',
          `expected at least ${count} audit records matching ${describeQuery(query)} within ${timeoutMs} ms, found ${records.length} in ${this.path}`,
        );
      }
      await sleep(POLL_MS);
    }
  }

  /**
   * readerFrom is the reader to answer a query from `offset`: the current one when it started at
   * or before it, else a new one starting there (an earlier start covers every later mark).
   */
  #readerFrom(offset: number): AuditLogReader {
    if (this.#reader === undefined || this.#reader.startOffset > offset) {
      this.#reader = new AuditLogReader(this.path, { fromOffset: offset });
    }
    return this.#reader;
  }
}

function checkMark(mark: AuditMark | undefined): number | undefined {
  if (mark === undefined) return undefined;
  if (!Number.isSafeInteger(mark.offset) || mark.offset < 0) {
    throw new EnvtestError(
      'ERR_ENVTEST_INVALID_OPTIONS',
      "an audit query's since must be a mark from audit.mark()",
    );
  }
  return mark.offset;
}

/** toRecord turns the engine's record (empty strings, code 0) into the public one (undefined). */
function toRecord(record: EngineAuditRecord): AuditRecord {
  const optional = (value: string) => (value === '' ? undefined : value);
  return {
    auditID: record.auditID,
    stage: record.stage,
    user: record.user,
    groups: record.groups,
    impersonatedUser: optional(record.impersonatedUser),
    impersonatedGroups: record.impersonatedGroups,
    userAgent: record.userAgent,
    verb: record.verb,
    requestURI: record.requestURI,
    resource: optional(record.resource),
    subresource: optional(record.subresource),
    apiGroup: optional(record.apiGroup),
    namespace: optional(record.namespace),
    name: optional(record.name),
    code: record.code === 0 ? undefined : record.code,
    receivedAt: record.receivedAt,
  };
}

/**
 * matches is true when every field the query gives matches: a string equals the record's value,
 * a RegExp finds a match in it (flags such as `g` do not carry state between records); a field the
 * record lacks matches neither.
 */
export function matches(record: AuditRecord, query: AuditQuery): boolean {
  for (const field of TEXT_FIELDS) {
    const expected = query[field];
    if (expected === undefined) continue;
    const actual = record[field];
    if (actual === undefined) return false;
    if (typeof expected === 'string' ? actual !== expected : actual.search(expected) === -1) {
      return false;
    }
  }
  if (query.code !== undefined && record.code !== query.code) return false;
  if (query.writes === true && !WRITE_VERBS.has(record.verb)) return false;
  if (query.writes === false && WRITE_VERBS.has(record.verb)) return false;
  return true;
}

function describeQuery(query: AuditQuery): string {
  return JSON.stringify(query, (_key, value: unknown) =>
    value instanceof RegExp ? String(value) : value,
  );
}
