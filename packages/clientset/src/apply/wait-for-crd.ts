import { setTimeout as sleep } from 'node:timers/promises';
import { linkSignals } from '@k/rest';
import { isGone, isResourceExpired } from '@k/rest/errors';
import { CrdNotEstablishedError, type CrdCondition } from '../errors.js';
import type { DiscoveryClient } from '../discovery/discovery-client.js';
import type { ServerResources } from '../discovery/discovery-documents.js';
import { findByKind } from '../discovery/rest-mapper.js';
import type { DynamicResourceClient } from '../dynamic/dynamic-client.js';
import type { UnstructuredObject } from '../resource/object-types.js';

/** FIRST_DISCOVERY_RETRY_MS is the first pause before discovery is asked again; it doubles up to the cap. */
const FIRST_DISCOVERY_RETRY_MS = 250;
const MAX_DISCOVERY_RETRY_MS = 4_000;

/** CrdWait is one wait for a just-applied CustomResourceDefinition. */
export interface CrdWait {
  /** crds is the client of `customresourcedefinitions` the CRD was applied through. */
  crds: DynamicResourceClient;
  discovery: DiscoveryClient;
  /** applied is the CRD as the apply answered (its status and resourceVersion start the watch). */
  applied: UnstructuredObject;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

interface CrdShape {
  metadata?: { name?: string; resourceVersion?: string };
  spec?: {
    group?: string;
    names?: { kind?: string };
    versions?: { name?: string; served?: boolean }[];
  };
  status?: { conditions?: CrdCondition[] };
}

function conditionsOf(crd: UnstructuredObject): CrdCondition[] {
  const conditions = (crd as CrdShape).status?.conditions;
  return Array.isArray(conditions) ? conditions : [];
}

function isEstablished(crd: UnstructuredObject): boolean {
  return conditionsOf(crd).some(
    (condition) => condition.type === 'Established' && condition.status === 'True',
  );
}

/** describeConditions names what holds the CRD back: its conditions that are not True. */
function describeConditions(conditions: readonly CrdCondition[]): string {
  const failing = conditions.filter((condition) => condition.status !== 'True');
  if (failing.length === 0) return conditions.length === 0 ? 'no conditions yet' : 'all True';
  return failing
    .map(
      (condition) =>
        `${condition.type}=${condition.status}${condition.reason ? ` (${condition.reason}${condition.message ? `: ${condition.message}` : ''})` : ''}`,
    )
    .join(', ');
}

/**
 * waitForEstablished watches the CRD (one request; the watch starts at the applied
 * resourceVersion, so no change is missed) until its `Established` condition is True, and
 * resolves with the CRD as last seen. An expired resourceVersion reads the CRD again and
 * watches on. Throws {@link CrdNotEstablishedError} at the deadline or when the CRD is deleted.
 */
async function waitForEstablished(wait: CrdWait, name: string, deadline: number) {
  let current = wait.applied;
  const timeoutError = (reason: string) =>
    new CrdNotEstablishedError(
      `customresourcedefinition ${name} ${reason}: ${describeConditions(conditionsOf(current))}`,
      {
        crd: name,
        timeoutMs: wait.timeoutMs,
        established: false,
        conditions: conditionsOf(current),
      },
    );
  for (;;) {
    if (isEstablished(current)) return current;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw timeoutError(`was not established within ${wait.timeoutMs} ms`);
    // linkSignals: its deadline timer is cleared as soon as the wait ends.
    const linked = linkSignals([wait.signal], { timeoutMs: remaining });
    try {
      const watch = await wait.crds.watch({
        fieldSelector: `metadata.name=${name}`,
        resourceVersion: (current as CrdShape).metadata?.resourceVersion,
        timeoutSeconds: Math.ceil(remaining / 1000),
        signal: linked.signal,
      });
      for await (const event of watch) {
        if (event.type === 'BOOKMARK') continue;
        current = event.object;
        if (event.type === 'DELETED') throw timeoutError('was deleted while waiting for it');
        if (isEstablished(current)) {
          watch.close();
          return current;
        }
      }
    } catch (error) {
      if (linked.timedOut) {
        throw timeoutError(`was not established within ${wait.timeoutMs} ms`);
      }
      if (!isGone(error) && !isResourceExpired(error)) throw error;
      current = await wait.crds.get(name, { signal: wait.signal });
    } finally {
      linked.dispose();
    }
  }
}

function servesEveryVersion(
  resources: ServerResources,
  group: string,
  kind: string,
  versions: readonly string[],
): boolean {
  return versions.every((version) => findByKind(resources, { group, version, kind }) !== undefined);
}

/**
 * waitForCrdServed waits until a just-applied CustomResourceDefinition can be used: first until
 * it is `Established` (a watch of the CRD, not polling), then until discovery lists its kind in
 * every served version, which is what the REST mapper needs to map objects of that kind. The
 * cached discovery is checked first; otherwise discovery is fetched again, pausing 250 ms, then
 * twice as long each time (at most 4 s) between fetches, so the wait stays well inside the
 * client's throttle. Every request goes through the client (its throttle and retry apply).
 * Throws {@link CrdNotEstablishedError} when `timeoutMs` passes first; an aborted `signal`
 * rejects with its reason.
 */
export async function waitForCrdServed(wait: CrdWait): Promise<void> {
  const deadline = Date.now() + wait.timeoutMs;
  const name = (wait.applied as CrdShape).metadata?.name ?? '';
  const crd = await waitForEstablished(wait, name, deadline);
  const spec = (crd as CrdShape).spec;
  const group = spec?.group ?? '';
  const kind = spec?.names?.kind ?? '';
  const versions = (spec?.versions ?? [])
    .filter((version) => version.served && typeof version.name === 'string')
    .map((version) => version.name as string);
  let resources = await wait.discovery.serverResources();
  for (
    let pause = FIRST_DISCOVERY_RETRY_MS;
    ;
    pause = Math.min(pause * 2, MAX_DISCOVERY_RETRY_MS)
  ) {
    if (servesEveryVersion(resources, group, kind, versions)) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new CrdNotEstablishedError(
        `customresourcedefinition ${name} is established, but discovery did not list ${kind} in ${versions.map((version) => `${group}/${version}`).join(', ')} within ${wait.timeoutMs} ms`,
        { crd: name, timeoutMs: wait.timeoutMs, established: true, conditions: conditionsOf(crd) },
      );
    }
    await wait.discovery.invalidate();
    resources = await wait.discovery.refresh();
    if (servesEveryVersion(resources, group, kind, versions)) return;
    await sleep(
      Math.min(pause, Math.max(0, deadline - Date.now())),
      undefined,
      wait.signal ? { signal: wait.signal } : undefined,
    );
  }
}
