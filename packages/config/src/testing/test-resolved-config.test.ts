import { describe, expect, it } from 'vitest';
import { testResolvedConfig } from './test-resolved-config.js';

describe('testResolvedConfig', () => {
  it('puts the overrides on top, and keeps the value of one passed as undefined', () => {
    const config = testResolvedConfig('http://127.0.0.1:1', {
      namespace: undefined,
      tls: undefined,
      disableCompression: true,
      timeoutMs: undefined,
    });
    expect(config).toEqual({
      server: 'http://127.0.0.1:1',
      contextName: 'test',
      clusterName: 'test',
      userName: 'test',
      namespace: 'default',
      namespaceExplicit: false,
      tls: { insecure: false },
      auth: { kind: 'none' },
      disableCompression: true,
      source: 'kubeconfig',
    });
    expect(Object.keys(config)).not.toContain('timeoutMs');
  });
});
