import { inferClientset, type Clientset, type KubernetesObject, type Watch } from '@k/clientset';
import { eventually as eventuallyWithin, type AuditRecord } from '@k/envtest';
import { environment } from '@k/envtest/vitest';
import type { ModuleKind } from '@k/test-utils';
import ts from 'typescript';
import type { ListerWatcher } from '../src/informer.js';

export { inParallel } from '@k/test-utils';

/**
 * clientsetFor builds a new clientset (the caller closes it) for a user of the run's control plane
 * kubeconfig (`admin`, `alice` or `tester`), unthrottled so suites stay fast.
 */
export function clientsetFor(context = 'admin'): Promise<Clientset> {
  return inferClientset({ kubeconfig: environment().kubeconfigPath, context, throttle: 'off' });
}

/**
 * eventually is @k/envtest's `eventually` with the timeout and interval as arguments: it retries
 * `check` every `intervalMs` until it stops throwing and rethrows its last error after
 * `timeoutMs` (default 30 s: these tests wait on controllers and informers of a shared plane).
 */
export function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 30_000,
  intervalMs = 200,
): Promise<T> {
  return eventuallyWithin(check, { timeoutMs, intervalMs });
}

/** CountingSource wraps a real client and records every list and watch the informer sends. */
export class CountingSource<T extends KubernetesObject> implements ListerWatcher<T> {
  readonly lists: Parameters<ListerWatcher<T>['list']>[0][] = [];
  readonly watches: Parameters<ListerWatcher<T>['watch']>[0][] = [];
  readonly #inner: ListerWatcher<T>;
  readonly #rewriteWatch:
    ((options: Parameters<ListerWatcher<T>['watch']>[0]) => typeof options) | undefined;

  constructor(
    inner: ListerWatcher<T>,
    rewriteWatch?: (options: Parameters<ListerWatcher<T>['watch']>[0]) => typeof options,
  ) {
    this.#inner = inner;
    this.#rewriteWatch = rewriteWatch;
  }

  list(options?: Parameters<ListerWatcher<T>['list']>[0]) {
    this.lists.push(options);
    return this.#inner.list(options);
  }

  watch(options?: Parameters<ListerWatcher<T>['watch']>[0]) {
    const sent = this.#rewriteWatch ? this.#rewriteWatch(options) : options;
    this.watches.push(sent);
    return this.#inner.watch(sent);
  }
}

/**
 * GatedSource wraps a real client: `pause()` ends the current watch (as a server closing it
 * would) and holds every new watch until `resume()`, so changes meanwhile are missed.
 */
export class GatedSource<T extends KubernetesObject> extends CountingSource<T> {
  #current: Watch<T> | undefined;
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;

  pause(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
    this.#current?.close();
  }

  resume(): void {
    this.#open?.();
    this.#gate = undefined;
  }

  override async watch(options?: Parameters<ListerWatcher<T>['watch']>[0]): Promise<Watch<T>> {
    await this.#gate;
    this.#current = await super.watch(options);
    return this.#current;
  }
}

/** permissionOf is what an audited request needed in RBAC terms: `verb resource[/subresource]`. */
export function permissionOf(record: AuditRecord): string {
  return `${record.verb} ${record.resource}${record.subresource ? `/${record.subresource}` : ''}`;
}

/** UNREACHABLE_KUBECONFIG points at a port nothing listens on, with a token that must never be printed. */
export const UNREACHABLE_KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster:
    server: https://127.0.0.1:1
    insecure-skip-tls-verify: true
users:
- name: someone
  user:
    token: not-a-secret
contexts:
- name: nowhere
  context:
    cluster: nowhere
    user: someone
current-context: nowhere
`;

/** jsonLogLines parses a program's stderr as the default logger writes it: one JSON object per line. */
export function jsonLogLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** transpileFor turns a TypeScript module into what a user's build emits for `kind` (one file, no type check). */
export function transpileFor(source: string, kind: ModuleKind): string {
  return ts.transpileModule(source, {
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: kind === 'esm' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS,
    },
  }).outputText;
}
