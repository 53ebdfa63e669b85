import { readFile } from 'node:fs/promises';
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

/**
 * readAuditLog reads the audit log of a control plane (`auditLogPath` of its connection) and
 * returns one record per request (its stages merged by audit ID, in the order requests started)
 * that matches `filter`. A request's record appears once its response has started; kube-apiserver
 * may write it a moment after the client got the response, so count with
 * {@link waitForAuditRecords}.
 */
export async function readAuditLog(path: string, filter: AuditFilter = {}): Promise<AuditRecord[]> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  const byId = new Map<string, AuditRecord>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let event: RawAuditEvent;
    try {
      event = JSON.parse(line) as RawAuditEvent;
    } catch {
      continue; // A line still being written.
    }
    byId.set(event.auditID, {
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
    });
  }
  return [...byId.values()].filter((record) => matches(record, filter));
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
  for (;;) {
    const records = await readAuditLog(path, filter);
    if (records.length >= count) {
      await sleep(options.settleMs ?? 300);
      return readAuditLog(path, filter);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `expected ${count} audit records matching ${JSON.stringify(filter, (_key, value: unknown) => (value instanceof RegExp ? String(value) : value))} in ${path}, found ${records.length}`,
      );
    }
    await sleep(100);
  }
}
