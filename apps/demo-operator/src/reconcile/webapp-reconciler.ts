import type { Clientset } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { Service } from '@k/clientset/core/v1';
import {
  findStatusCondition,
  isControlledBy,
  withFinalizer,
  type EventRecorder,
  type OwnWrites,
  type ReconcileContext,
  type Reconciler,
} from '@k/runtime';
import type { WebApp, WebAppStatus, WebAppsClient } from '../generated/web-app-v1beta1.js';
import { OperatorError } from '../errors.js';
import { FIELD_MANAGER, FINALIZER } from '../names.js';
import { Changes, makeChild, type ApplyOutcome, type ChildWrite } from './child-objects.js';
import { desiredDeployment, desiredService } from './desired-state.js';
import type { WebAppRegistry } from './webapp-registry.js';
import { sameStatus, webAppStatus } from './webapp-status.js';

/**
 * The caches of a WebApp's children, with the reconciler's own writes in them (the WebApp itself
 * comes from the controller, with its own writes). A reconcile reads nothing else from the server,
 * except the live Deployment or Service before it changes one (to be sure it is this WebApp's) and
 * after a create found the name taken.
 */
export interface WebAppCaches {
  deployments: OwnWrites<Deployment>;
  services: OwnWrites<Service>;
}

/** WebAppEvents is where the reconciler tells what it did (a @k/runtime `EventRecorder`). */
export type WebAppEvents = Pick<EventRecorder, 'normal' | 'warning'>;

/**
 * What one reconcile wrote, for logs, events and tests (`[]` when nothing changed); the finalizer
 * is added and removed by `withFinalizer` around it.
 */
type WebAppWrite = 'registry-recorded' | ChildWrite | 'status-updated' | 'registry-forgotten';

/** WebAppContext is what the controller (of `for(webapps client)`) hands a reconcile. */
export type WebAppContext = ReconcileContext<WebApp, WebAppsClient>;

/** WebAppReconcileResult is what one reconcile wrote and, while it found a conflict, when to look again. */
export interface WebAppReconcileResult {
  writes: WebAppWrite[];
  /** requeueAfterMs is set while a Deployment or Service of the WebApp's name belongs to someone else. */
  requeueAfterMs?: number;
}

/** CONFLICT_RECHECK_MS bounds how often a conflict is looked at again: from 5 s, as long as it has lasted, to 5 minutes. */
const CONFLICT_RECHECK_MS = { min: 5_000, max: 300_000 } as const;

/**
 * WebAppReconciler brings one WebApp's world in line with its spec, level-based and idempotent:
 * - deleted (a deletion timestamp): removes its registry entry, and only once that succeeded its
 *   finalizer; the garbage collector then deletes the Deployment and Service it owns;
 * - otherwise: adds the finalizer, then at once records the WebApp in the registry and makes
 *   its Deployment and Service (unless `spec.paused`), and applies the status computed from the
 *   Deployment.
 *
 * The Deployment and the Service are this WebApp's only if it is their controlling owner (by
 * UID). A missing one is created with a create, which fails when the name is taken, never
 * with a server-side apply, which would take over whatever has that name. An existing one is
 * changed only after a live read showed it is this WebApp's, by a server-side apply (field
 * manager `demo-operator`, forced, so anything someone else changed in the fields it owns is
 * put back: drift) that names its UID, so it can change no other object. One that belongs to
 * someone else is left untouched: the status says `Degraded: Conflict`, a `Conflict` warning
 * tells it once, and the WebApp is looked at again later (from 5 s to 5 minutes apart).
 *
 * Every other read is from the informers' caches, with the reconciler's own writes the
 * informers have not delivered yet (so a reconcile right after another never repeats its
 * writes), and a write is sent only when it would change something: with nothing changing a
 * reconcile sends nothing. What a reconcile changed is one Event per reason on the WebApp
 * (`Created`, `Updated`, `DriftCorrected`, `CleanedUp`; `ApplyFailed`, `CleanupFailed`,
 * `Conflict` and `RegistryFull` as warnings). A failed write throws (after the status says
 * Degraded), and the controller retries it with backoff; a namespace's full registry is not
 * retried (`Degraded: RegistryFull`): a change of it enqueues the WebApps it lacks.
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
  readonly #now: () => number;

  constructor(
    clientset: Clientset,
    caches: WebAppCaches,
    registry: WebAppRegistry,
    events: WebAppEvents,
    now: () => number = Date.now,
  ) {
    this.#clientset = clientset;
    this.#caches = caches;
    this.#registry = registry;
    this.#events = events;
    this.#now = now;
  }

  /**
   * reconciler is what the controller runs: {@link apply} and {@link cleanup} behind the WebApp's
   * finalizer, so a deleted WebApp keeps it until its registry entry is gone. `onWrites` is told
   * what each reconcile wrote.
   */
  reconciler(
    onWrites: (webapp: WebApp, writes: readonly WebAppWrite[]) => void = () => {},
  ): Reconciler<WebApp, WebAppsClient> {
    return withFinalizer<WebApp, WebAppsClient>(FINALIZER, {
      apply: async (webapp, context) => {
        const { writes, requeueAfterMs } = await this.apply(webapp, context);
        onWrites(webapp, writes);
        return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
      },
      cleanup: async (webapp) => {
        onWrites(webapp, await this.cleanup(webapp));
      },
    });
  }

  /**
   * cleanup removes a deleted WebApp's registry entry (its finalizer goes next, by
   * `withFinalizer`); the garbage collector deletes the Deployment and Service it owns.
   */
  async cleanup(webapp: WebApp): Promise<WebAppWrite[]> {
    const writes: WebAppWrite[] = [];
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
    this.#events.normal(webapp, 'CleanedUp', 'removed the registry entry; the finalizer goes next');
    return writes;
  }

  /** apply brings a live WebApp's children, registry entry and status in line with it. */
  async apply(webapp: WebApp, context: WebAppContext): Promise<WebAppReconcileResult> {
    const { request } = context;
    const writes: WebAppWrite[] = [];
    const options = { fieldManager: FIELD_MANAGER, force: true, signal: context.signal };

    // The registry entry, the Deployment and the Service do not depend on each other: one round
    // trip for the three.
    const outcome: ApplyOutcome = {
      writes,
      changes: new Changes(),
      failures: [],
      conflicts: new Map(),
      conflictDetails: [],
    };
    const [recorded, deploymentMade] = await Promise.allSettled([
      this.#registry.record(webapp),
      webapp.spec.paused
        ? undefined
        : makeChild(
            'Deployment',
            this.#caches.deployments,
            this.#clientset.appsV1.deployments(request.namespace),
            desiredDeployment(webapp),
            webapp,
            options,
            outcome,
          ),
      webapp.spec.paused
        ? undefined
        : makeChild(
            'Service',
            this.#caches.services,
            this.#clientset.coreV1.services(request.namespace),
            desiredService(webapp),
            webapp,
            options,
            outcome,
          ),
    ]);
    if (recorded.status === 'fulfilled' && recorded.value) writes.push('registry-recorded');
    writes.sort((a, b) => WRITE_ORDER.indexOf(a) - WRITE_ORDER.indexOf(b));
    const cachedDeployment = this.#caches.deployments.get(webapp);
    const deployment =
      (deploymentMade.status === 'fulfilled' ? deploymentMade.value : undefined) ??
      (cachedDeployment && isControlledBy(cachedDeployment, webapp) ? cachedDeployment : undefined);
    const { changes, failures, conflicts } = outcome;
    const failure =
      failures.length === 0
        ? undefined
        : failures.length === 1
          ? failures[0]
          : new AggregateError(failures, failures.map((error) => error.message).join('; '));
    for (const [reason, note] of changes.notes()) this.#events.normal(webapp, reason, note);
    if (failure) this.#events.warning(webapp, 'ApplyFailed', failure.message);
    const conflict = conflicts.size > 0 ? [...conflicts.values()].join('; ') : undefined;
    const degraded = findStatusCondition(webapp.status?.conditions, 'Degraded');
    if (conflict && !(degraded?.reason === 'Conflict' && degraded.message === conflict)) {
      this.#events.warning(webapp, 'Conflict', conflict); // once, not at every look
      context.logger.warn("objects of the WebApp's name are not its own; left unchanged", {
        objects: outcome.conflictDetails.join('; '),
      });
    }
    // A full registry is no failure to retry: a change of it enqueues the WebApps it lacks.
    const registryFull =
      recorded.status === 'rejected' &&
      OperatorError.isInstance(recorded.reason) &&
      recorded.reason.code === 'ERR_OPERATOR_REGISTRY_FULL'
        ? recorded.reason.message
        : undefined;
    if (registryFull && degraded?.reason !== 'RegistryFull') {
      this.#events.warning(webapp, 'RegistryFull', registryFull);
    }

    const status = webAppStatus(webapp, deployment, {
      paused: webapp.spec.paused === true,
      ...(failure ? { failure: failure.message } : {}),
      ...(conflict ? { conflict } : {}),
      ...(registryFull ? { registryFull } : {}),
      ...(conflicts.has('Deployment') ? { deploymentConflict: conflicts.get('Deployment')! } : {}),
    });
    if (!sameStatus(webapp.status, status)) {
      const identity = { apiVersion: 'apps.k.example/v1beta1', kind: 'WebApp' } as const;
      context.remember(
        await context.client.applyStatus(
          { ...identity, metadata: { name: request.name }, status },
          options,
        ),
      );
      writes.push('status-updated');
    }
    if (failure) throw failure;
    if (recorded.status === 'rejected' && !registryFull) throw recorded.reason;
    return conflict ? { writes, requeueAfterMs: this.#conflictRecheckMs(status) } : { writes };
  }

  /**
   * conflictRecheckMs is how long to wait before looking at a conflict again: as long as it has
   * lasted (the Degraded condition's transition time), from 5 s to 5 minutes, so a conflict
   * nobody resolves costs fewer and fewer reads, and one resolved soon is noticed soon.
   */
  #conflictRecheckMs(status: WebAppStatus): number {
    const since = Date.parse(
      findStatusCondition(status.conditions, 'Degraded')?.lastTransitionTime ?? '',
    );
    const lasted = Number.isNaN(since) ? 0 : this.#now() - since;
    return Math.min(CONFLICT_RECHECK_MS.max, Math.max(CONFLICT_RECHECK_MS.min, lasted));
  }
}

/** The order a reconcile's writes are told in (they are sent partly at once). */
const WRITE_ORDER: readonly WebAppWrite[] = [
  'registry-recorded',
  'deployment-created',
  'deployment-updated',
  'service-created',
  'service-updated',
  'status-updated',
  'registry-forgotten',
];

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
