import type { ApplyConfiguration, ApplyOptions, Clientset, KubernetesObject } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { Service } from '@k/clientset/core/v1';
import type { EventRecorder, ReconcileContext, Request } from '@k/runtime';
import {
  createWebappsClient,
  type WebApp,
  type WebAppStatus,
} from '../generated/web-app-v1alpha1.js';
import { CONFIG_HASH_ANNOTATION, FIELD_MANAGER, FINALIZER } from '../names.js';
import { desiredDeployment, desiredService } from './desired-state.js';
import { isApplied } from './is-applied.js';
import type { OwnWrites } from './own-writes.js';
import type { WebAppRegistry } from './webapp-registry.js';
import { sameStatus, webAppStatus } from './webapp-status.js';

/** The caches a reconcile reads (it never lists or gets from the server), with its own writes in them. */
export interface WebAppCaches {
  webapps: OwnWrites<WebApp>;
  deployments: OwnWrites<Deployment>;
  services: OwnWrites<Service>;
}

/** WebAppEvents is where the reconciler tells what it did (a @k/runtime `EventRecorder`). */
export type WebAppEvents = Pick<EventRecorder, 'normal' | 'warning'>;

/** What one reconcile wrote, for logs, events and tests (`[]` when nothing changed). */
export type WebAppWrite =
  | 'finalizer-added'
  | 'registry-recorded'
  | 'deployment-created'
  | 'deployment-updated'
  | 'service-created'
  | 'service-updated'
  | 'status-updated'
  | 'registry-forgotten'
  | 'finalizer-removed';

/**
 * WebAppReconciler brings one WebApp's world in line with its spec, level-based and idempotent:
 * - deleted (a deletion timestamp): removes its registry entry, and only once that succeeded its
 *   finalizer; the garbage collector then deletes the Deployment and Service it owns;
 * - otherwise: adds the finalizer, then at once records the WebApp in the registry and
 *   server-side applies the Deployment and the Service (field manager `demo-operator`, forced,
 *   controller reference) unless `spec.paused`, which puts back anything someone else changed in
 *   the fields it owns (drift), and applies the status computed from the Deployment.
 * Every read is from the informers' caches, with the reconciler's own writes the informers have
 * not delivered yet (so a reconcile right after another never repeats its writes), and a write
 * is sent only when it would change something: with nothing changing a reconcile sends nothing.
 * What a reconcile changed is one Event per reason on the WebApp (`Created`, `Updated`,
 * `DriftCorrected`, `CleanedUp`; `ApplyFailed` and `CleanupFailed` as warnings). A failed write
 * throws (after the status says Degraded), and the controller retries it with backoff.
 *
 * A new WebApp costs seven writes, each necessary: the finalizer (before anything it guards), its
 * registry entry, the Deployment, the Service, one `Created` Event for both, the status as soon
 * as they exist (generation observed, rollout under way), and the status once the Deployment
 * controller reports the rollout's result (Available) — more status writes only as the
 * Deployment's Pods change.
 */
export class WebAppReconciler {
  readonly #clientset: Clientset;
  readonly #caches: WebAppCaches;
  readonly #registry: WebAppRegistry;
  readonly #events: WebAppEvents;

  constructor(
    clientset: Clientset,
    caches: WebAppCaches,
    registry: WebAppRegistry,
    events: WebAppEvents,
  ) {
    this.#clientset = clientset;
    this.#caches = caches;
    this.#registry = registry;
    this.#events = events;
  }

  /** reconcile handles `request`; resolves with what it wrote. */
  async reconcile(request: Request, context: ReconcileContext): Promise<WebAppWrite[]> {
    const key = `${request.namespace}/${request.name}`;
    const webapp = this.#caches.webapps.get(key);
    if (!webapp) return []; // gone: its dependents go with it (garbage collector)
    const writes: WebAppWrite[] = [];
    const webapps = createWebappsClient(this.#clientset.rest, request.namespace);
    const finalizers = webapp.metadata?.finalizers ?? [];
    const options = { fieldManager: FIELD_MANAGER, force: true, signal: context.signal };

    if (webapp.metadata?.deletionTimestamp) {
      if (!finalizers.includes(FINALIZER)) return writes;
      try {
        if (await this.#registry.forget(webapp)) writes.push('registry-forgotten');
      } catch (error) {
        this.#events.warning(
          webapp,
          'CleanupFailed',
          `could not remove the registry entry: ${messageOf(error)}`,
        );
        throw error;
      }
      this.#events.normal(
        webapp,
        'CleanedUp',
        'removed the registry entry; the finalizer goes next',
      );
      // Applying no finalizers gives up the one this field manager owns.
      await this.#applyWebApp(webapps, request.name, { finalizers: [] }, options);
      writes.push('finalizer-removed');
      return writes;
    }

    if (!finalizers.includes(FINALIZER)) {
      await this.#applyWebApp(webapps, request.name, { finalizers: [FINALIZER] }, options);
      writes.push('finalizer-added');
    }
    // The registry entry, the Deployment and the Service do not depend on each other: one round
    // trip for the three.
    const outcome: ApplyOutcome = { writes, changes: new Changes(), failures: [] };
    const [recorded, deploymentApplied] = await Promise.allSettled([
      this.#registry.record(webapp),
      webapp.spec.paused
        ? undefined
        : this.#apply(
            'Deployment',
            this.#caches.deployments,
            this.#clientset.appsV1.deployments(request.namespace),
            desiredDeployment(webapp),
            options,
            outcome,
          ),
      webapp.spec.paused
        ? undefined
        : this.#apply(
            'Service',
            this.#caches.services,
            this.#clientset.coreV1.services(request.namespace),
            desiredService(webapp),
            options,
            outcome,
          ),
    ]);
    if (recorded.status === 'fulfilled' && recorded.value) writes.push('registry-recorded');
    writes.sort((a, b) => WRITE_ORDER.indexOf(a) - WRITE_ORDER.indexOf(b));
    const deployment =
      (deploymentApplied.status === 'fulfilled' ? deploymentApplied.value : undefined) ??
      this.#caches.deployments.get(key);
    const { changes, failures } = outcome;
    const failure =
      failures.length === 0
        ? undefined
        : failures.length === 1
          ? failures[0]
          : new AggregateError(failures, failures.map((error) => error.message).join('; '));
    for (const [reason, note] of changes.notes()) this.#events.normal(webapp, reason, note);
    if (failure) this.#events.warning(webapp, 'ApplyFailed', failure.message);

    const status = webAppStatus(webapp, deployment, {
      paused: webapp.spec.paused === true,
      ...(failure ? { failure: failure.message } : {}),
    });
    if (!sameStatus(webapp.status, status)) {
      await this.#applyWebApp(webapps, request.name, { status }, options);
      writes.push('status-updated');
    }
    if (failure) throw failure;
    if (recorded.status === 'rejected') throw recorded.reason;
    return writes;
  }

  /**
   * applyWebApp server-side applies the WebApp's fields this operator owns — its finalizers (an
   * empty list gives its finalizer up), or its status (the status subresource) — and remembers
   * the server's answer.
   */
  async #applyWebApp(
    webapps: ReturnType<typeof createWebappsClient>,
    name: string,
    owned: { finalizers: string[] } | { status: WebAppStatus },
    options: ApplyOptions,
  ): Promise<void> {
    const identity = { apiVersion: 'apps.k.example/v1alpha1', kind: 'WebApp' } as const;
    this.#caches.webapps.remember(
      'status' in owned
        ? await webapps.applyStatus(
            { ...identity, metadata: { name }, status: owned.status },
            options,
          )
        : await webapps.apply(
            {
              ...identity,
              metadata: owned.finalizers.length ? { name, finalizers: owned.finalizers } : { name },
            },
            options,
          ),
    );
  }

  /**
   * apply server-side applies `wanted` (a `kind`) unless the cache, with this reconciler's own
   * writes, shows it applied; resolves with the server's answer (undefined when nothing was
   * written) and adds what it did to `outcome` (a failure included: it never rejects).
   */
  async #apply<T extends KubernetesObject>(
    kind: 'Deployment' | 'Service',
    cache: OwnWrites<T>,
    client: { apply(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> },
    wanted: ApplyConfiguration<T>,
    options: ApplyOptions,
    outcome: ApplyOutcome,
  ): Promise<T | undefined> {
    const before = cache.get(`${wanted.metadata.namespace}/${wanted.metadata.name}`);
    if (isApplied(before, wanted)) return undefined;
    try {
      const live = await client.apply(wanted, options);
      cache.remember(live);
      outcome.writes.push(
        `${kind === 'Deployment' ? 'deployment' : 'service'}-${before ? 'updated' : 'created'}`,
      );
      outcome.changes.add(kind, before, wanted);
      return live;
    } catch (error) {
      outcome.failures.push(error instanceof Error ? error : new Error(String(error)));
      return undefined;
    }
  }
}

/** The order a reconcile's writes are told in (they are sent partly at once). */
const WRITE_ORDER: readonly WebAppWrite[] = [
  'finalizer-added',
  'registry-recorded',
  'deployment-created',
  'deployment-updated',
  'service-created',
  'service-updated',
  'status-updated',
  'registry-forgotten',
  'finalizer-removed',
];

/** ApplyOutcome collects what the applies of one reconcile did. */
interface ApplyOutcome {
  writes: WebAppWrite[];
  changes: Changes;
  failures: Error[];
}

type ChangeReason = 'Created' | 'Updated' | 'DriftCorrected';

/**
 * Changes collects what one reconcile applied, to tell it in one Event per reason: `Created`;
 * `Updated` when the spec changed (the applied configuration's hash differs); `DriftCorrected`
 * when someone else changed a field the operator owns (same hash, different content).
 */
class Changes {
  readonly #objects = new Map<ChangeReason, string[]>();

  add(
    kind: string,
    before: { metadata?: { annotations?: Record<string, string> } } | undefined,
    wanted: { metadata: { name: string; annotations?: Record<string, string | undefined> } },
  ): void {
    const reason: ChangeReason = !before
      ? 'Created'
      : before.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ===
          wanted.metadata.annotations?.[CONFIG_HASH_ANNOTATION]
        ? 'DriftCorrected'
        : 'Updated';
    const objects = this.#objects.get(reason) ?? [];
    objects.push(`${kind} ${wanted.metadata.name}`);
    this.#objects.set(reason, objects);
  }

  /** notes are the `[reason, note]` of each Event to record. */
  *notes(): Generator<[ChangeReason, string]> {
    for (const [reason, objects] of this.#objects) {
      const named = [...objects].sort().join(' and ');
      yield [
        reason,
        reason === 'Created'
          ? `created ${named}`
          : reason === 'Updated'
            ? `updated ${named} to the spec`
            : `put back fields of ${named} that were changed by someone else`,
      ];
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
