/**
 * HealthCheck is one named check of `/healthz` or `/readyz`: it returns (or resolves) nothing
 * when healthy and throws (or rejects) with the reason when not. It must be quick: the probe
 * waits for it (a check that takes longer than the probe's timeout fails).
 */
export type HealthCheck = () => void | Promise<void>;

/** HealthReport is the outcome of one probe: every check by name, `ok` when all passed. */
export interface HealthReport {
  ok: boolean;
  checks: { name: string; ok: boolean; reason?: string }[];
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
 * once; `run` runs them all at once and reports each.
 */
export class HealthChecks {
  readonly #checks = new Map<string, HealthCheck>();

  /** add registers `check` under `name`; false when the name is taken (the first one stays). */
  add(name: string, check: HealthCheck): boolean {
    if (this.#checks.has(name)) return false;
    this.#checks.set(name, check);
    return true;
  }

  async run(): Promise<HealthReport> {
    const checks = await Promise.all(
      [...this.#checks].map(async ([name, check]) => {
        const reason = await runCheck(check);
        return reason === undefined ? { name, ok: true } : { name, ok: false, reason };
      }),
    );
    return { ok: checks.every((check) => check.ok), checks };
  }
}

/**
 * renderHealthReport is the body of a probe in the API server's format: `ok` alone when healthy
 * (unless `verbose`), else one `[+]name ok` / `[-]name failed: reason` line per check.
 */
export function renderHealthReport(report: HealthReport, verbose: boolean): string {
  if (report.ok && !verbose) return 'ok';
  const lines = report.checks.map((check) =>
    check.ok ? `[+]${check.name} ok` : `[-]${check.name} failed: ${check.reason ?? 'unknown'}`,
  );
  lines.push(report.ok ? 'healthz check passed' : 'healthz check failed');
  return `${lines.join('\n')}\n`;
}
