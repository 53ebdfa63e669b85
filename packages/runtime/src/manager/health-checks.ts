/**
 * HealthCheck is one named check of `/healthz` or `/readyz`: it returns (or resolves) nothing
 * when healthy and throws (or rejects) with the reason when not. It must be quick: the probe
 * waits for it (a check that takes longer than the probe's timeout fails).
 */
export type HealthCheck = () => void | Promise<void>;

/** CheckResult is the outcome of one check; an excluded check did not run and counts as passed. */
export interface CheckResult {
  name: string;
  ok: boolean;
  reason?: string;
  excluded?: boolean;
}

/** HealthReport is the outcome of one probe: every check by name, `ok` when all passed. */
export interface HealthReport {
  ok: boolean;
  checks: CheckResult[];
  /** unmatchedExcludes are the excluded names no check has (reported as a warning, as kube-apiserver does). */
  unmatchedExcludes: string[];
}

const CHECK_TIMEOUT_MS = 5_000;

async function runCheck(check: HealthCheck): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('check timed out')), CHECK_TIMEOUT_MS);
      }),
    ]);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * HealthChecks is a named set of checks (controller-runtime's healthz handler): a name is added
 * once; `run` runs them all at once and reports each, `runOne` runs one.
 */
export class HealthChecks {
  readonly #checks = new Map<string, HealthCheck>();

  /** add registers `check` under `name`; false when the name is taken (the first one stays). */
  add(name: string, check: HealthCheck): boolean {
    if (this.#checks.has(name)) return false;
    this.#checks.set(name, check);
    return true;
  }

  /** run runs every check but those named in `exclude` (kube-apiserver's `?exclude=`). */
  async run(exclude: readonly string[] = []): Promise<HealthReport> {
    const excluded = new Set(exclude);
    const checks = await Promise.all(
      [...this.#checks].map(async ([name, check]): Promise<CheckResult> => {
        if (excluded.has(name)) return { name, ok: true, excluded: true };
        const reason = await runCheck(check);
        return reason === undefined ? { name, ok: true } : { name, ok: false, reason };
      }),
    );
    return {
      ok: checks.every((check) => check.ok),
      checks,
      unmatchedExcludes: [...excluded].filter((name) => !this.#checks.has(name)),
    };
  }

  /** runOne runs the check `name` alone; undefined when there is none of that name. */
  async runOne(name: string): Promise<CheckResult | undefined> {
    const check = this.#checks.get(name);
    if (!check) return undefined;
    const reason = await runCheck(check);
    return reason === undefined ? { name, ok: true } : { name, ok: false, reason };
  }
}

/**
 * renderHealthReport is the body of a probe of `endpoint` (`healthz`, `livez`, `readyz`) in the
 * API server's format: `ok` alone when healthy (unless `verbose`), else one `[+]name ok`,
 * `[+]name excluded: ok` or `[-]name failed: reason withheld` line per check (the reason may name
 * accounts, namespaces or hosts: the server logs it instead), a warning naming excluded
 * checks that do not exist, and `<endpoint> check passed` or `failed`.
 */
export function renderHealthReport(
  report: HealthReport,
  verbose: boolean,
  endpoint: string,
): string {
  if (report.ok && !verbose) return 'ok';
  const lines = report.checks.map((check) =>
    check.excluded
      ? `[+]${check.name} excluded: ok`
      : check.ok
        ? `[+]${check.name} ok`
        : `[-]${check.name} failed: reason withheld`,
  );
  if (report.unmatchedExcludes.length > 0) {
    const names = report.unmatchedExcludes.map((name) => JSON.stringify(name)).join(', ');
    lines.push(`warn: some health checks cannot be excluded: no matches for ${names}`);
  }
  lines.push(`${endpoint} check ${report.ok ? 'passed' : 'failed'}`);
  return `${lines.join('\n')}\n`;
}
