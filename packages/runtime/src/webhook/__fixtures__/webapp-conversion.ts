import type { ObjectMeta } from '@k/clientset';
import type { ConversionDefinition } from '../conversion.js';

// A WebApp CRD with two versions, as an operator would write its converters: v1 is the hub;
// v1alpha1 has one host instead of a list and a size instead of a replica count, so what v1
// holds and v1alpha1 cannot is stashed in an annotation on the way down and restored on the way up.

export const GROUP = 'demo.k.io';

/** WebApp is the hub, demo.k.io/v1. */
export interface WebApp {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMeta | undefined;
  spec: { image: string; replicas?: number | undefined; hosts?: string[] | undefined };
  status?: { readyReplicas?: number | undefined; url?: string | undefined } | undefined;
}

export type Size = 'small' | 'medium' | 'large';

/** WebAppV1alpha1 is the spoke, demo.k.io/v1alpha1. */
export interface WebAppV1alpha1 {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMeta | undefined;
  spec: { image: string; size?: Size | undefined; host?: string | undefined };
  status?: { readyReplicas?: number | undefined } | undefined;
}

const REPLICAS_OF_SIZE: Readonly<Record<Size, number>> = { small: 1, medium: 3, large: 5 };

/** STASH is the annotation that keeps, on a v1alpha1 object, the v1 fields it cannot hold. */
export const STASH = 'demo.k.io/v1-fields';

interface Stash {
  replicas?: number;
  hosts?: string[];
  url?: string;
}

function sizeOf(replicas: number): Size {
  if (replicas <= 1) return 'small';
  return replicas <= 3 ? 'medium' : 'large';
}

function withoutStash(metadata: ObjectMeta | undefined): ObjectMeta | undefined {
  if (metadata?.annotations?.[STASH] === undefined) return metadata;
  const annotations = { ...metadata.annotations };
  delete annotations[STASH];
  const rest = { ...metadata };
  delete rest.annotations;
  return Object.keys(annotations).length > 0 ? { ...rest, annotations } : rest;
}

function toHub(old: WebAppV1alpha1): WebApp {
  const raw = old.metadata?.annotations?.[STASH];
  const stash: Stash = raw === undefined ? {} : (JSON.parse(raw) as Stash);
  const spec: WebApp['spec'] = { image: old.spec.image };
  if (old.spec.size !== undefined) spec.replicas = REPLICAS_OF_SIZE[old.spec.size];
  if (stash.replicas !== undefined) spec.replicas = stash.replicas;
  if (old.spec.host !== undefined) spec.hosts = [old.spec.host];
  if (stash.hosts !== undefined) spec.hosts = stash.hosts;
  const hub: WebApp = { metadata: withoutStash(old.metadata), spec };
  if (old.status !== undefined) {
    hub.status = { ...old.status, ...(stash.url === undefined ? {} : { url: stash.url }) };
  }
  return hub;
}

function fromHub(hub: WebApp): WebAppV1alpha1 {
  const stash: Stash = {};
  const spec: WebAppV1alpha1['spec'] = { image: hub.spec.image };
  const { replicas, hosts } = hub.spec;
  if (replicas !== undefined) {
    spec.size = sizeOf(replicas);
    if (REPLICAS_OF_SIZE[spec.size] !== replicas) stash.replicas = replicas;
  }
  if (hosts !== undefined) {
    if (hosts.length === 1) spec.host = hosts[0];
    else stash.hosts = hosts;
  }
  const spoke: WebAppV1alpha1 = { metadata: hub.metadata, spec };
  if (hub.status !== undefined) {
    const { url, ...status } = hub.status;
    spoke.status = status;
    if (url !== undefined) stash.url = url;
  }
  if (Object.keys(stash).length > 0) {
    spoke.metadata = {
      ...hub.metadata,
      annotations: { ...hub.metadata?.annotations, [STASH]: JSON.stringify(stash) },
    };
  }
  return spoke;
}

/** webAppConversion round-trips every field of both versions. */
export const webAppConversion = {
  group: GROUP,
  kind: 'WebApp',
  plural: 'webapps',
  hub: 'v1',
  spokes: { v1alpha1: { toHub, fromHub } },
} satisfies ConversionDefinition<WebApp, { v1alpha1: WebAppV1alpha1 }>;

/** lossyWebAppConversion is the same without the stash: v1's extra hosts, odd replica counts and url are lost in v1alpha1. */
export const lossyWebAppConversion: ConversionDefinition<WebApp, { v1alpha1: WebAppV1alpha1 }> = {
  ...webAppConversion,
  spokes: {
    v1alpha1: {
      toHub,
      fromHub: (hub) => {
        const spoke = fromHub(hub);
        return { ...spoke, metadata: withoutStash(spoke.metadata) };
      },
    },
  },
};
