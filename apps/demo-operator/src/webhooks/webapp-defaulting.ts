import type { WebApp } from '../generated/web-app-v1beta1.js';

/**
 * defaultMemoryLimit gives a WebApp that requests memory but sets no memory limit a limit equal
 * to its request, in place, and says whether it did. Memory is not compressible: a container
 * past its request is the first the kubelet evicts under pressure, and one without a limit can
 * take a node's memory; a limit equal to the request gives it what it asked for and no more.
 * CPU is left alone (a CPU limit throttles). A schema `default` cannot do this: it sets a
 * constant, never a value read from another field — nor only when another field is set.
 */
export function defaultMemoryLimit(webapp: WebApp): boolean {
  const resources = webapp.spec.container.resources;
  const request =
    resources?.requests !== undefined && Object.hasOwn(resources.requests, 'memory')
      ? resources.requests['memory']
      : undefined;
  if (resources === undefined || request === undefined) return false;
  if (resources.limits !== undefined && Object.hasOwn(resources.limits, 'memory')) return false;
  resources.limits = { ...resources.limits, memory: request };
  return true;
}
