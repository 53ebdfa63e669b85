import type { Clientset } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { Service } from '@k/clientset/core/v1';
import type { EventRecorder, Lister, ReconcileContext, Request } from '@k/runtime';
import { createWebappsClient, type WebApp } from '../generated/web-app-v1alpha1.js';
import { CONFIG_HASH_ANNOTATION, FIELD_MANAGER, FINALIZER } from '../names.js';
import { desiredDeployment, desiredService } from './desired-state.js';
import { isApplied } from './is-applied.js';
import type { WebAppRegistry } from './webapp-registry.js';
import { sameStatus, webAppStatus } from './webapp-status.js';

/** The caches a reconcile reads: it never lists or gets from the server. */
export interface WebAppCaches {
  webapps: Lister<WebApp>;
  deployments: Lister<Deployment>;
  services: Lister<Service>;
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
 * - otherwise: adds the finalizer, records the WebApp in the registry, server-side applies the
 *   Deployment and the Service (field manager `demo-operator`, forced, controller reference) unless
 *   `spec.paused`, which puts back anything someone else changed in the fields it owns (drift),
 *   and applies the status computed from the Deployment.
 * Every read is from the informers' caches, and a write is sent only when the cache shows it would
 * change something, so with nothing changing a reconcile sends nothing. Each change is an Event
 * on the WebApp (`Created`, `Updated`, `DriftCorrected`, `CleanedUp`; `ApplyFailed` and
 * `CleanupFailed` as warnings). A failed write throws (after the status says Degraded), and the
 * controller retries it with backoff.
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
      await webapps.apply(
        { apiVersion: 'apps.k.example/v1alpha1', kind: 'WebApp', metadata: { name: request.name } },
        options,
      );
      writes.push('finalizer-removed');
      return writes;
    }

    if (!finalizers.includes(FINALIZER)) {
      await webapps.apply(
        {
          apiVersion: 'apps.k.example/v1alpha1',
          kind: 'WebApp',
          metadata: { name: request.name, finalizers: [FINALIZER] },
        },
        options,
      );
      writes.push('finalizer-added');
    }
    if (await this.#registry.record(webapp)) writes.push('registry-recorded');

    let deployment = this.#caches.deployments.get(key);
    let failure: Error | undefined;
    if (!webapp.spec.paused) {
      try {
        const wanted = desiredDeployment(webapp);
        if (!isApplied(deployment, wanted)) {
          const before = deployment;
          deployment = await this.#clientset.appsV1
            .deployments(request.namespace)
            .apply(wanted, options);
          writes.push(before === undefined ? 'deployment-created' : 'deployment-updated');
          this.#tell(webapp, 'Deployment', before, wanted);
        }
        const service = this.#caches.services.get(key);
        const wantedService = desiredService(webapp);
        if (!isApplied(service, wantedService)) {
          await this.#clientset.coreV1.services(request.namespace).apply(wantedService, options);
          writes.push(service === undefined ? 'service-created' : 'service-updated');
          this.#tell(webapp, 'Service', service, wantedService);
        }
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
        this.#events.warning(webapp, 'ApplyFailed', failure.message);
      }
    }

    const status = webAppStatus(webapp, deployment, {
      paused: webapp.spec.paused === true,
      ...(failure ? { failure: failure.message } : {}),
    });
    if (!sameStatus(webapp.status, status)) {
      await webapps.applyStatus(
        {
          apiVersion: 'apps.k.example/v1alpha1',
          kind: 'WebApp',
          metadata: { name: request.name },
          status,
        },
        options,
      );
      writes.push('status-updated');
    }
    if (failure) throw failure;
    return writes;
  }

  /**
   * tell records what an apply of `kind` did: `Created`; `Updated` when the spec changed (the
   * applied configuration's hash differs); `DriftCorrected` when someone else changed it.
   */
  #tell(
    webapp: WebApp,
    kind: string,
    before: { metadata?: { annotations?: Record<string, string> } } | undefined,
    wanted: { metadata: { name: string; annotations?: Record<string, string | undefined> } },
  ): void {
    const name = wanted.metadata.name;
    if (!before) {
      this.#events.normal(webapp, 'Created', `created ${kind} ${name}`);
    } else if (
      before.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ===
      wanted.metadata.annotations?.[CONFIG_HASH_ANNOTATION]
    ) {
      this.#events.normal(
        webapp,
        'DriftCorrected',
        `put back fields of ${kind} ${name} that were changed by someone else`,
      );
    } else {
      this.#events.normal(webapp, 'Updated', `updated ${kind} ${name} to the spec`);
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
