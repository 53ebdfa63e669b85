import { createHash } from 'node:crypto';
import type { ApplyConfiguration, DeepPartial, KubernetesObject } from '@k/clientset';
import type { Deployment } from '@k/clientset/apps/v1';
import type { Container, Service } from '@k/clientset/core/v1';
import type { WebApp } from '../generated/web-app-v1beta1.js';
import {
  CONFIG_HASH_ANNOTATION,
  CONTAINER_NAME,
  DEFAULT_PORT,
  DEFAULT_REPLICAS,
  FIELD_MANAGER,
  MANAGED_BY_LABEL,
  SERVICE_PORT,
  controllerReference,
  selectorLabels,
} from '../names.js';

/** stableJson renders `value` with object keys sorted, so equal values hash equally. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${stableJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** withConfigHash annotates `configuration` with the hash of itself (without the annotation). */
function withConfigHash<T extends ApplyConfiguration<KubernetesObject>>(configuration: T): T {
  const hash = createHash('sha256').update(stableJson(configuration)).digest('hex').slice(0, 16);
  configuration.metadata.annotations = {
    ...(configuration.metadata.annotations as Record<string, string> | undefined),
    [CONFIG_HASH_ANNOTATION]: hash,
  };
  return configuration;
}

function objectMeta(webapp: WebApp) {
  return {
    name: webapp.metadata?.name ?? '',
    namespace: webapp.metadata?.namespace ?? '',
    labels: { ...selectorLabels(webapp), [MANAGED_BY_LABEL]: FIELD_MANAGER },
    ownerReferences: [controllerReference(webapp)],
  };
}

/**
 * desiredDeployment is the Deployment `webapp` asks for, as the operator applies it: only the
 * fields it owns (server-side apply), its controller reference and the hash of the whole.
 */
export function desiredDeployment(webapp: WebApp): ApplyConfiguration<Deployment> {
  const { spec } = webapp;
  const { container: wanted } = spec;
  const container: DeepPartial<Container> = {
    name: CONTAINER_NAME,
    image: wanted.image,
    ports: [{ name: 'http', containerPort: wanted.port ?? DEFAULT_PORT, protocol: 'TCP' }],
  };
  if (wanted.env?.length) {
    // The server drops an empty value: sending none keeps the applied and live objects equal.
    container.env = wanted.env.map(({ name, value }) => (value ? { name, value } : { name }));
  }
  const { resources } = wanted;
  if (resources && (resources.limits || resources.requests)) {
    container.resources = {
      ...(resources.limits ? { limits: stringQuantities(resources.limits) } : {}),
      ...(resources.requests ? { requests: stringQuantities(resources.requests) } : {}),
    };
  }
  return withConfigHash<ApplyConfiguration<Deployment>>({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: objectMeta(webapp),
    spec: {
      replicas: spec.replicas ?? DEFAULT_REPLICAS,
      selector: { matchLabels: selectorLabels(webapp) },
      template: {
        metadata: { labels: { ...selectorLabels(webapp), [MANAGED_BY_LABEL]: FIELD_MANAGER } },
        spec: { containers: [container] },
      },
    },
  });
}

/** The server writes quantities as strings; sending strings keeps the applied and live values equal. */
function stringQuantities(quantities: Record<string, number | string>): Record<string, string> {
  return Object.fromEntries(Object.entries(quantities).map(([key, value]) => [key, String(value)]));
}

/** desiredService is the Service in front of `webapp`'s Pods: port 80 to the container's `http` port. */
export function desiredService(webapp: WebApp): ApplyConfiguration<Service> {
  return withConfigHash<ApplyConfiguration<Service>>({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: objectMeta(webapp),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(webapp),
      ports: [{ name: 'http', port: SERVICE_PORT, targetPort: 'http', protocol: 'TCP' }],
    },
  });
}
