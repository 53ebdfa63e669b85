import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRANSPORT_VERSION } from '../version.js';
import { defaultUserAgent } from './default-user-agent.js';

describe('defaultUserAgent', () => {
  it("has client-go's shape with Go's OS and architecture names", () => {
    expect(defaultUserAgent({ platform: 'linux', arch: 'x64' })).toBe(
      `k/${TRANSPORT_VERSION} (linux/amd64)`,
    );
    expect(defaultUserAgent({ platform: 'win32', arch: 'arm64', appName: 'my-operator/1.2' })).toBe(
      `k/${TRANSPORT_VERSION} (windows/arm64) my-operator/1.2`,
    );
    expect(defaultUserAgent({ userAgent: 'custom/1' })).toBe('custom/1');
  });

  it('uses the version in package.json', () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(TRANSPORT_VERSION).toBe(manifest.version);
  });
});
