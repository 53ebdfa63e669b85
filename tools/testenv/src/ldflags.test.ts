import { describe, expect, it } from 'vitest';
import { kubernetesLdflags, toBuildDate } from './ldflags.js';

describe('kubernetesLdflags', () => {
  const flags = kubernetesLdflags('1.37.2', '2026-07-01T10:00:00Z');

  it('strips symbols and stamps both version packages with the release', () => {
    expect(flags.startsWith('-s -w ')).toBe(true);
    for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
      expect(flags).toContain(`-X ${pkg}.gitVersion=v1.37.2`);
      expect(flags).toContain(`-X ${pkg}.gitMajor=1`);
      expect(flags).toContain(`-X ${pkg}.gitMinor=37`);
      expect(flags).toContain(`-X ${pkg}.gitTreeState=clean`);
      expect(flags).toContain(`-X ${pkg}.buildDate=2026-07-01T10:00:00Z`);
    }
    expect(flags.match(/-X /g)).toHaveLength(10);
  });

  it('accepts a leading v and rejects malformed input', () => {
    expect(kubernetesLdflags('v1.34.4', '2026-01-02T03:04:05Z')).toContain('gitMinor=34');
    expect(() => kubernetesLdflags('1.37', '2026-07-01T10:00:00Z')).toThrow(
      /not a Kubernetes release/,
    );
    expect(() => kubernetesLdflags('1.37.2', '2026-07-01')).toThrow(/build date/);
  });
});

describe('toBuildDate', () => {
  it('drops milliseconds', () => {
    expect(toBuildDate(new Date('2026-07-01T10:00:00.123Z'))).toBe('2026-07-01T10:00:00Z');
  });
});
