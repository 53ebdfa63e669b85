import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * AUDIT_POLICY is the policy every control plane runs with: every request at Metadata level (who,
 * what, which object, the response code; no bodies), logged when the response started (watches)
 * and when it completed.
 */
export const AUDIT_POLICY = [
  'apiVersion: audit.k8s.io/v1',
  'kind: Policy',
  'omitStages: [RequestReceived]',
  'rules:',
  '- level: Metadata',
  '',
].join('\n');

/** AuditRecord is one request as kube-apiserver's audit log saw it. */
export interface AuditRecord {
  readonly auditID: string;
  /** The last stage logged: `ResponseComplete`, or `ResponseStarted` for a watch still open. */
  readonly stage: string;
  /** The authenticated user (with impersonation: the one who impersonates). */
  readonly user: string;
  readonly groups: readonly string[];
  /** Who the request ran as when it impersonated (`Impersonate-User`), else `''`. */
  readonly impersonatedUser: string;
  readonly impersonatedGroups: readonly string[];
  readonly userAgent: string;
  /** `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, … */
  readonly verb: string;
  readonly requestURI: string;
  /** Empty for non-resource requests such as `/readyz`. */
  readonly resource: string;
  readonly subresource: string;
  readonly apiGroup: string;
  readonly namespace: string;
  readonly name: string;
  /** The response code (0 while a watch is still open). */
  readonly code: number;
  /** When kube-apiserver received the request, in milliseconds since the epoch (microsecond precision). */
  readonly receivedAt: number;
}

/** AuditFilter selects records; every given field must match (a RegExp tests, a string equals). */
export interface AuditFilter {
  readonly user?: string | RegExp;
  readonly impersonatedUser?: string | RegExp;
  readonly userAgent?: string | RegExp;
  readonly verb?: string | RegExp;
  readonly resource?: string | RegExp;
  readonly subresource?: string | RegExp;
  readonly apiGroup?: string | RegExp;
  readonly namespace?: string | RegExp;
  readonly name?: string | RegExp;
}

interface RawAuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  userAgent?: string;
  user?: { username?: string; groups?: string[] };
  impersonatedUser?: { username?: string; groups?: string[] };
  objectRef?: {
    resource?: string;
    subresource?: string;
    apiGroup?: string;
    namespace?: string;
    name?: string;
  };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
}

/** permissionOf is what a record's request needed in RBAC terms: `verb resource[/subresource]`. */
export function permissionOf(record: AuditRecord): string {
  return `${record.verb} ${record.resource}${record.subresource ? `/${record.subresource}` : ''}`;
}

/** AuditLogRead is what one read of the audit log found, and where the next read starts. */
export interface AuditLogRead {
  /** One record per request seen in the window, stages merged by audit ID, in the order logged. */
  readonly records: AuditRecord[];
  /** The byte offset just after the last complete line read: pass it as `fromOffset` next time. */
  readonly nextOffset: number;
}

/** AuditLogReaderOptions bound what an {@link AuditLogReader} reads. */
export interface AuditLogReaderOptions {
  /** Where reading starts, a byte offset at a line start (default 0). */
  readonly fromOffset?: number | undefined;
  /** Bytes read per `read()` system call (default 1 MiB). */
  readonly chunkBytes?: number | undefined;
  /** A longer line is skipped, not buffered (default 1 MiB; Metadata-level lines are ~1 KiB). */
  readonly maxLineBytes?: number | undefined;
}

interface Entry {
  record: AuditRecord;
  /** Offset of the first line of this request the reader saw. */
  readonly firstOffset: number;
  /** Its stage: `ResponseComplete` first means the request started before the reader's window if it was long-running. */
  readonly firstStage: string;
}

/**
 * AuditLogReader follows an audit log incrementally: each {@link AuditLogReader.read} reads only the
 * bytes appended since the last one (in `chunkBytes` pieces, never the whole file at once), up to the
 * last complete line, and merges every line into its records by audit ID, so a watch's
 * `ResponseComplete` line that arrives reads after its `ResponseStarted` still updates the one record.
 * It holds the records of its window (from `fromOffset`) in memory. Concurrent `read()` calls run
 * one after the other.
 */
export class AuditLogReader {
  readonly path: string;
  readonly startOffset: number;
  readonly #chunkBytes: number;
  readonly #maxLineBytes: number;
  readonly #entries = new Map<string, Entry>();
  #offset: number;
  #reading: Promise<unknown> | undefined;

  constructor(path: string, options: AuditLogReaderOptions = {}) {
    this.path = path;
    this.startOffset = options.fromOffset ?? 0;
    this.#offset = this.startOffset;
    this.#chunkBytes = options.chunkBytes ?? 1 << 20;
    this.#maxLineBytes = options.maxLineBytes ?? 1 << 20;
  }

  /** offset is the byte offset just after the last complete line read so far. */
  get offset(): number {
    return this.#offset;
  }

  /**
   * read reads what was appended since the last read, up to the end of the file as it is now (a
   * missing file reads as empty), and returns the new offset. A line still being written is left
   * for the next read.
   */
  read(): Promise<number> {
    const next = (this.#reading ?? Promise.resolve()).then(() => this.#readAppended());
    this.#reading = next.catch(() => undefined);
    return next;
  }

  async #readAppended(): Promise<number> {
    let handle;
    try {
      handle = await open(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.#offset;
      throw error;
    }
    try {
      const end = (await handle.stat()).size;
      const buffer = Buffer.alloc(Math.min(this.#chunkBytes, Math.max(end - this.#offset, 0)));
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let skipping = false;
      let lineOffset = this.#offset;
      let position = this.#offset;
      while (position < end) {
        const length = Math.min(buffer.length, end - position);
        const { bytesRead } = await handle.read(buffer, 0, length, position);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        let start = 0;
        for (
          let newline = chunk.indexOf(0x0a);
          newline !== -1;
          newline = chunk.indexOf(0x0a, start)
        ) {
          if (!skipping) {
            const piece = chunk.subarray(start, newline);
            const line = pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]);
            this.#merge(line.toString('utf8'), lineOffset);
          }
          pending = [];
          pendingBytes = 0;
          skipping = false;
          start = newline + 1;
          lineOffset = position + start;
          this.#offset = lineOffset;
        }
        if (start < bytesRead && !skipping) {
          pendingBytes += bytesRead - start;
          if (pendingBytes > this.#maxLineBytes) {
            // An overlong line is skipped to its end rather than buffered.
            pending = [];
            pendingBytes = 0;
            skipping = true;
          } else {
            pending.push(Buffer.from(chunk.subarray(start)));
          }
        }
        position += bytesRead;
      }
      return this.#offset;
    } finally {
      await handle.close();
    }
  }

  #merge(line: string, offset: number): void {
    if (line.trim() === '') return;
    let event: RawAuditEvent;
    try {
      event = JSON.parse(line) as RawAuditEvent;
    } catch {
      return; // Not an audit event.
    }
    if (typeof event.auditID !== 'string') return;
    const record = toRecord(event);
    const entry = this.#entries.get(event.auditID);
    if (entry) entry.record = record;
    else this.#entries.set(event.auditID, { record, firstOffset: offset, firstStage: event.stage });
  }

  /**
   * records returns the records read so far that match `filter`, in the order first logged. Without
   * `since`, every request with a line in the window. With `since` (a byte offset at or after
   * `startOffset`, at a line start), only requests that started after it: their first line is at or
   * after `since`, and a long-running request (watch, exec, logs, …) whose `ResponseStarted` line
   * came before the window does not count even when it completes inside it.
   */
  records(
    filter: AuditFilter = {},
    options: { readonly since?: number | undefined } = {},
  ): AuditRecord[] {
    const since = options.since;
    const records: AuditRecord[] = [];
    for (const entry of this.#entries.values()) {
      if (since !== undefined) {
        if (entry.firstOffset < since) continue;
        if (entry.firstStage === 'ResponseComplete' && isLongRunning(entry.record)) continue;
      }
      if (matches(entry.record, filter)) records.push(entry.record);
    }
    return records;
  }
}

/**
 * LONG_RUNNING_VERBS and LONG_RUNNING_SUBRESOURCES are kube-apiserver's long-running request check
 * (`BasicLongRunningRequestCheck` in its server config): only these requests log `ResponseStarted`,
 * so only for these does a lone `ResponseComplete` mean the request started earlier.
 */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

function isLongRunning(record: AuditRecord): boolean {
  return LONG_RUNNING_VERBS.has(record.verb) || LONG_RUNNING_SUBRESOURCES.has(record.subresource);
}

function toRecord(event: RawAuditEvent): AuditRecord {
  return {
    auditID: event.auditID,
    stage: event.stage,
    user: event.user?.username ?? '',
    groups: event.user?.groups ?? [],
    impersonatedUser: event.impersonatedUser?.username ?? '',
    impersonatedGroups: event.impersonatedUser?.groups ?? [],
    userAgent: event.userAgent ?? '',
    verb: event.verb,
    requestURI: event.requestURI,
    resource: event.objectRef?.resource ?? '',
    subresource: event.objectRef?.subresource ?? '',
    apiGroup: event.objectRef?.apiGroup ?? '',
    namespace: event.objectRef?.namespace ?? '',
    name: event.objectRef?.name ?? '',
    code: event.responseStatus?.code ?? 0,
    receivedAt: event.requestReceivedTimestamp ? Date.parse(event.requestReceivedTimestamp) : 0,
  };
}

/**
 * readAuditLogFrom reads the audit log from byte offset `fromOffset` (default 0, or a previous
 * read's `nextOffset`) to its current end, in bounded chunks, and returns the records of the
 * requests logged in that window that match `filter`, plus where the next read starts. It rereads
 * nothing before `fromOffset`: a request whose lines straddle two reads is in both, each time with
 * its latest stage; to merge across reads, keep an {@link AuditLogReader}.
 */
export async function readAuditLogFrom(
  path: string,
  filter: AuditFilter = {},
  options: { readonly fromOffset?: number | undefined } = {},
): Promise<AuditLogRead> {
  const reader = new AuditLogReader(path, { fromOffset: options.fromOffset });
  const nextOffset = await reader.read();
  return { records: reader.records(filter), nextOffset };
}

/**
 * readAuditLog reads the audit log of a control plane (`auditLogPath` of its connection) and
 * returns one record per request (its stages merged by audit ID, in the order requests started)
 * that matches `filter`. A request's record appears once its response has started; kube-apiserver
 * may write it a moment after the client got the response, so count with
 * {@link waitForAuditRecords}. It reads the whole file (in bounded chunks); to read only what is
 * new, use {@link readAuditLogFrom} or an {@link AuditLogReader}.
 */
export async function readAuditLog(path: string, filter: AuditFilter = {}): Promise<AuditRecord[]> {
  return (await readAuditLogFrom(path, filter)).records;
}

function matches(record: AuditRecord, filter: AuditFilter): boolean {
  return (Object.entries(filter) as [keyof AuditFilter, string | RegExp | undefined][]).every(
    ([field, expected]) =>
      expected === undefined ||
      (typeof expected === 'string' ? record[field] === expected : expected.test(record[field])),
  );
}

/**
 * waitForAuditRecords polls the audit log until at least `count` records match `filter` (or
 * `timeoutMs`, default 10 000, passes: then it throws) and returns all matching records, after
 * one more read `settleMs` (default 300) later, so a surplus request also shows.
 */
export async function waitForAuditRecords(
  path: string,
  filter: AuditFilter,
  count: number,
  options: { readonly timeoutMs?: number; readonly settleMs?: number } = {},
): Promise<AuditRecord[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  // One reader for the whole wait: each poll reads only what was appended since the last.
  const reader = new AuditLogReader(path);
  for (;;) {
    await reader.read();
    const records = reader.records(filter);
    if (records.length >= count) {
      await sleep(options.settleMs ?? 300);
      await reader.read();
      return reader.records(filter);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `expected ${count} audit records matching ${JSON.stringify(filter, (_key, value: unknown) => (value instanceof RegExp ? String(value) : value))} in ${path}, found ${records.length}`,
      );
    }
    await sleep(100);
  }
}
