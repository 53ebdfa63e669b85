import {
  isAlreadyExists,
  isInvalid,
  type ApplyConfiguration,
  type ApplyOptions,
  type JsonPatchOperation,
  type KubernetesObject,
} from '@k/clientset';
import { isApplied, isControlledBy, type OwnWrites } from '@k/runtime';
import type { WebApp } from '../generated/web-app-v1beta1.js';
import { CONFIG_HASH_ANNOTATION, FIELD_MANAGER } from '../names.js';
import { conflictDetail, conflictMessage, handOverPatch } from './ownership.js';

/** ChildKind is what a WebApp is made of. */
export type ChildKind = 'Deployment' | 'Service';

/** ChildWrite is a write of a child, as a reconcile reports it. */
export type ChildWrite =
  'deployment-created' | 'deployment-updated' | 'service-created' | 'service-updated';

/** The client of the Deployments or the Services of one namespace, as the reconciler uses it. */
export interface ChildClient<T extends KubernetesObject> {
  get(name: string, options?: { signal?: AbortSignal | undefined }): Promise<T>;
  create(
    object: T,
    options: { fieldManager: string; signal?: AbortSignal | undefined },
  ): Promise<T>;
  patch(
    name: string,
    type: 'json',
    body: readonly JsonPatchOperation[],
    options: { fieldManager: string; signal?: AbortSignal | undefined },
  ): Promise<T>;
  apply(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
}

/** conflict records that `object`, of the WebApp's name, is someone else's. */
function conflict(outcome: ApplyOutcome, kind: ChildKind, object: KubernetesObject): void {
  outcome.conflicts.set(kind, conflictMessage(kind, object));
  outcome.conflictDetails.push(conflictDetail(kind, object));
}

/**
 * makeChild brings the `kind` named like `webapp` in line with `wanted`, only if it is
 * `webapp`'s, unless the cache (with the reconciler's own writes) shows it so already. Missing
 * from the cache, it is created (a create fails when the name is taken); existing, a live read
 * checks that `webapp` controls it before an apply changes it. Resolves with the object as it now
 * is when it is `webapp`'s, undefined otherwise; adds what it did to `outcome` (a conflict or a
 * failure included: it never rejects).
 */
export async function makeChild<T extends KubernetesObject>(
  kind: ChildKind,
  cache: OwnWrites<T>,
  client: ChildClient<T>,
  wanted: ApplyConfiguration<T>,
  webapp: WebApp,
  options: ApplyOptions,
  outcome: ApplyOutcome,
): Promise<T | undefined> {
  const { name, namespace } = wanted.metadata;
  const prefix = kind === 'Deployment' ? 'deployment' : 'service';
  const signal = options.signal;
  try {
    const cached = cache.get({ metadata: { namespace, name } });
    if (cached && !isControlledBy(cached, webapp)) {
      conflict(outcome, kind, cached);
      return undefined;
    }
    if (cached && isApplied(cached, wanted)) return cached;
    if (!cached) {
      try {
        const created = await client.create(wanted as unknown as T, {
          fieldManager: FIELD_MANAGER,
          signal,
        });
        cache.remember(created);
        outcome.writes.push(`${prefix}-created`);
        outcome.changes.add(kind, undefined, wanted);
        return created;
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    }
    // It exists: change it only if the live object is this WebApp's.
    let live = await client.get(name, { signal });
    if (!isControlledBy(live, webapp)) {
      conflict(outcome, kind, live);
      return undefined;
    }
    if (isApplied(live, wanted)) {
      cache.remember(live);
      return live;
    }
    const handedOver = await handOver(client, live, webapp, signal);
    if (!handedOver) {
      conflict(outcome, kind, live);
      return undefined;
    }
    live = handedOver;
    // The UID makes the apply fail rather than create or change another object of this name.
    const applied = await client.apply(
      {
        ...(wanted as object),
        metadata: { ...wanted.metadata, uid: live.metadata?.uid },
      } as ApplyConfiguration<T>,
      options,
    );
    cache.remember(applied);
    outcome.writes.push(`${prefix}-updated`);
    outcome.changes.add(kind, live, wanted);
    return applied;
  } catch (error) {
    outcome.failures.push(error instanceof Error ? error : new Error(String(error)));
    return undefined;
  }
}

/**
 * handOver makes the fields the operator's create recorded (an `Update`) its apply's, before
 * the first apply (see {@link handOverPatch}); resolves with the object as it then is, or
 * undefined when a read again found it no longer `webapp`'s. A patch that finds the object
 * changed since it was read (422: a test failed) reads it again, up to three times.
 */
async function handOver<T extends KubernetesObject>(
  client: ChildClient<T>,
  live: T,
  webapp: WebApp,
  signal: AbortSignal | undefined,
): Promise<T | undefined> {
  const name = live.metadata?.name ?? '';
  for (let attempt = 1; ; attempt++) {
    const patch = handOverPatch(live);
    if (!patch) return live;
    try {
      return await client.patch(name, 'json', patch, { fieldManager: FIELD_MANAGER, signal });
    } catch (error) {
      if (!isInvalid(error) || attempt === 3) throw error;
    }
    live = await client.get(name, { signal });
    if (!isControlledBy(live, webapp)) return undefined;
  }
}

/** ApplyOutcome collects what the writes of the Deployment and the Service in one reconcile did. */
export interface ApplyOutcome {
  /** writes gets the writes of the children (the reconcile's list of all its writes). */
  writes: { push(...writes: ChildWrite[]): number };
  changes: Changes;
  failures: Error[];
  /** conflicts says, by kind, why an object of the WebApp's name was left alone (someone else's). */
  conflicts: Map<ChildKind, string>;
  /** conflictDetails name what controls each of those objects, for the operator's log only. */
  conflictDetails: string[];
}

type ChangeReason = 'Created' | 'Updated' | 'DriftCorrected';

/**
 * Changes collects what one reconcile applied, to tell it in one Event per reason: `Created`;
 * `Updated` when the spec changed (the applied configuration's hash differs); `DriftCorrected`
 * when someone else changed a field the operator owns (same hash, different content).
 */
export class Changes {
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
