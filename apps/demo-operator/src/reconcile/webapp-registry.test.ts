import { describe, expect, it } from 'vitest';
import type { WebApp } from '../generated/web-app-v1beta1.js';
import { REGISTRY_MAX_BYTES, registryKey, registryName, registryValue } from '../names.js';
import { registryBytes } from './webapp-registry.js';

function webapp(namespace: string, name: string): WebApp {
  return { metadata: { namespace, name }, spec: { container: { image: 'nginx' } } };
}

describe('the registry bound', () => {
  it('counts every key and value in UTF-8 bytes', () => {
    expect(registryBytes(undefined)).toBe(0);
    expect(registryBytes({ 'a.b': 'http://b.a.svc:80', é: 'ü' })).toBe(3 + 17 + 2 + 2);
  });

  it('holds at least 800 WebApps of the longest names, per namespace, in a ConfigMap of its own', () => {
    const namespace = 'n'.repeat(63);
    const longest = webapp(namespace, 'w'.repeat(253));
    const entry = registryBytes({ [registryKey(longest)]: registryValue(longest) });
    expect(entry).toBe(648);
    expect(Math.floor(REGISTRY_MAX_BYTES / entry)).toBeGreaterThanOrEqual(800);
    // Half of what the API server takes (1 MiB of values), so keys and managedFields fit too.
    expect(REGISTRY_MAX_BYTES * 2).toBeLessThanOrEqual(1024 * 1024);
    expect(registryName(namespace)).toBe(`webapp-registry-${namespace}`);
    expect(registryName(namespace).length).toBeLessThanOrEqual(253);
  });
});
