import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  inferClientset,
  parseManifests,
  type Clientset,
  type UnstructuredObject,
} from '@k/clientset';
import { eventually as retryUntil, type AuditRecord } from '@k/envtest';
import { environment } from '@k/envtest/vitest';
import { createWebAppsClient, type WebApp } from '../src/generated/web-app-v1beta1.js';
import type { WebApp as WebAppV1alpha1 } from '../src/generated/web-app-v1alpha1.js';
import { toHub } from '../src/webhooks/webapp-conversion.js';
import { inferConfig } from '@k/config';
import { CLIENTSET } from '@k/clientset/di';
import { container as rootContainer } from 'tsyringe';
import { parseOperatorFlags } from '../src/operator-flags.js';
import type { OperatorSettings, WebAppOperator } from '../src/operator.js';
import { registerOperator } from '../src/register.js';
import { TextLogger } from '../src/text-logger.js';
import { WEBAPP_OPERATOR } from '../src/tokens.js';

/** APP_ROOT is apps/demo-operator. */
export const APP_ROOT = path.resolve(import.meta.dirname, '..');

/** The WebApp CustomResourceDefinition, as deploy/crd.yaml has it. */
const CRD_YAML = readFileSync(path.join(APP_ROOT, 'deploy/crd.yaml'), 'utf8');

/**
 * withoutConversion is the CRD manifest `yaml` without its `spec.conversion`: a conversion applied
 * later by URL (`WebhookServer.install`) cannot replace a Service another field manager applied
 * (the API server would get both, and refuse the CRD).
 */
async function withoutConversion(yaml: string): Promise<string> {
  const [crd] = (await parseManifests(yaml)) as (UnstructuredObject & {
    spec: { conversion?: unknown };
  })[];
  delete crd!.spec.conversion;
  return JSON.stringify(crd);
}

/** clientsetFor connects to the run's control plane as a user of its kubeconfig, unthrottled. */
export function clientsetFor(context = 'admin', userAgent?: string): Promise<Clientset> {
  return inferClientset({
    kubeconfig: environment().kubeconfigPath,
    context,
    throttle: 'off',
    ...(userAgent ? { transport: { userAgent } } : {}),
  });
}

/**
 * installCrd server-side applies the WebApp CRD (idempotent, so parallel test files may all do it)
 * and waits until it is served. `{ conversion: false }` leaves out its conversion webhook (the
 * Service of deploy/), for a test that installs the operator's own by URL.
 */
export async function installCrd(cs: Clientset, { conversion = true } = {}): Promise<void> {
  await cs.applyManifests(conversion ? CRD_YAML : await withoutConversion(CRD_YAML), {
    fieldManager: 'demo-operator-e2e',
    force: true,
  });
}

/** eventually retries `check` until it stops throwing, for up to a minute (a rollout on kwok's nodes). */
export function eventually<T>(check: () => T | Promise<T>, timeoutMs = 60_000): Promise<T> {
  return retryUntil(check, { timeoutMs, intervalMs: 200 });
}

/** permissionOf is what an audited request needed in RBAC terms: `verb resource[/subresource]`. */
export function permissionOf(record: AuditRecord): string {
  return `${record.verb} ${record.resource}${record.subresource ? `/${record.subresource}` : ''}`;
}

/**
 * webApp is a WebApp named `name` running nginx:1.27 (two replicas, port 8080), `spec` given as
 * v1alpha1 has it (every field in `spec`), in v1beta1, the version the API server stores (so
 * writing it needs no conversion webhook).
 */
export function webApp(name: string, spec: Partial<WebAppV1alpha1['spec']> = {}): WebApp {
  return toHub({
    apiVersion: 'apps.k.example/v1alpha1',
    kind: 'WebApp',
    metadata: { name },
    spec: { image: 'nginx:1.27', replicas: 2, port: 8080, ...spec },
  });
}

/** RunningOperator is an operator started in this process by {@link startOperator}. */
export interface RunningOperator {
  operator: WebAppOperator;
  clientset: Clientset;
  logs: string[];
  /** stop deletes every WebApp left in the namespace (while reconciling, so finalizers finish), then stops. */
  stop(): Promise<void>;
}

/**
 * startOperator runs the operator in this process against the run's control plane (or the one
 * of `kubeconfigPath`), wired as the command wires it (`registerOperator`), confined to
 * `namespace` (its WebApps, its registry and Lease there too), without leader election and
 * server unless `flags` say otherwise (a later flag wins: `--namespace=` watches every one), and
 * with `settings` over what the flags resolve to (e.g. a self-signed webhook certificate).
 */
export async function startOperator(
  namespace: string,
  flags: readonly string[] = [],
  kubeconfigPath: string = environment().kubeconfigPath,
  settings: Partial<OperatorSettings> = {},
): Promise<RunningOperator> {
  const config = await inferConfig({
    explicitPath: kubeconfigPath,
    overrides: { context: 'admin' },
  });
  const logs: string[] = [];
  const parsed = parseOperatorFlags(
    [
      `--namespace=${namespace}`,
      `--operator-namespace=${namespace}`,
      `--identity=e2e-${namespace}`,
      '--leader-elect=false',
      '--health-probe-bind-address=off',
      '--metrics-bind-address=off',
      '--qps=1000',
      '--burst=1000',
      ...flags,
    ],
    {},
  )!;
  Object.assign(parsed.settings, settings);
  const container = registerOperator(rootContainer.createChildContainer(), {
    config,
    flags: parsed,
    logger: new TextLogger((line) => logs.push(line), 'debug'),
  });
  const operator = container.resolve(WEBAPP_OPERATOR);
  const clientset = container.resolve(CLIENTSET);
  const stopSignal = new AbortController();
  const running = operator.run(stopSignal.signal);
  await eventually(() => {
    if (!operator.controller.synced) throw new Error('not synced yet');
  });
  return {
    operator,
    clientset,
    logs,
    async stop() {
      try {
        const webapps = createWebAppsClient(clientset.rest, namespace);
        const left = await webapps.list();
        for (const item of left.items) await webapps.delete(item.metadata!.name!);
        await eventually(async () => {
          if ((await webapps.list()).items.length > 0) throw new Error('WebApps left');
        }, 30_000);
      } finally {
        stopSignal.abort();
        await running;
        await clientset.close();
      }
    },
  };
}
