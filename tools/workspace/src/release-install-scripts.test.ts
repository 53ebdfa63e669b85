import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// npm 11 lists every dependency whose install scripts the root package.json's `allowScripts`
// does not decide, at the end of each `npm ci` ("install scripts not yet covered by
// allowScripts"); npm 12 skips them. Each one is decided here, with the reason, so a fresh
// clone installs without the warning and a new dependency with an install script fails this
// test until someone looks at what it runs.

const root = join(import.meta.dirname, '../../..');

/**
 * REVIEWED is every dependency with an install script that was read, whether it runs
 * (`allow`), and why. The root package.json's `allowScripts` must say the same.
 */
const REVIEWED: Record<string, { allow: boolean; why: string }> = {
  esbuild: {
    allow: false,
    why:
      'its postinstall checks the binary of the @esbuild/<platform> optional dependency (which the ' +
      'lockfile pins for every platform) and hard-links it over the bin/esbuild JavaScript shim, ' +
      'saving a node start per call of the esbuild command, which nothing here runs; tsup, vite, ' +
      'tsx and the benchmarks call the JavaScript API, which finds the binary itself. Without ' +
      'the optional dependency it would fetch the binary outside the lockfile',
  },
  nx: {
    allow: false,
    why:
      'its postinstall (errors swallowed, exit 0 always) asserts the platform is supported, which ' +
      "nx's native binding does again when it loads, and updates the Nx Cloud client when " +
      'nx.json uses Nx Cloud, which this workspace does not',
  },
};

interface LockfileEntry {
  name?: string;
  hasInstallScript?: boolean;
  link?: boolean;
  resolved?: string;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(join(root, path), 'utf8')) as T;
}

/** withInstallScripts lists the lockfile's dependencies that have install scripts, by name. */
function withInstallScripts(): Map<string, string[]> {
  const lockfile = readJson<{ packages: Record<string, LockfileEntry> }>('package-lock.json');
  const found = new Map<string, string[]>();
  for (const [location, entry] of Object.entries(lockfile.packages)) {
    if (!entry.hasInstallScript || entry.link || !location.includes('node_modules/')) continue;
    const name = entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 13);
    found.set(name, [...(found.get(name) ?? []), location]);
  }
  return found;
}

describe("the root package.json's allowScripts", () => {
  const manifest = readJson<{ allowScripts?: Record<string, unknown> }>('package.json');
  const allowScripts = manifest.allowScripts ?? {};

  it('decides every dependency of the lockfile that has an install script', () => {
    const undecided = [...withInstallScripts()]
      .filter(([name]) => typeof allowScripts[name] !== 'boolean')
      .map(([name, locations]) => `${name} (${locations.join(', ')})`);
    expect(
      undecided,
      'read what its install script does, then add "<name>": true or false to allowScripts in ' +
        'package.json and the reason to REVIEWED here',
    ).toEqual([]);
  });

  it('names packages only, each with a reviewed reason, none stale', () => {
    // The lockfile records no registry URLs (.npmrc: omit-lockfile-registry-resolved), and npm
    // takes a pinned entry's version only from that URL: "esbuild@0.28.2": false would match
    // nothing. A name-only entry covers every version, so a new version of a denied package
    // stays denied.
    const lockfile = readJson<{ packages: Record<string, LockfileEntry> }>('package-lock.json');
    const withUrls = Object.entries(lockfile.packages).filter(([, entry]) =>
      /^[a-z+]+:\/\//.test(entry.resolved ?? ''),
    );
    expect(withUrls.map(([location]) => location)).toEqual([]);
    const installing = withInstallScripts();
    for (const [key, value] of Object.entries(allowScripts)) {
      expect(key, 'a name without a version').toMatch(/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[^@/]+$/);
      expect(typeof value, key).toBe('boolean');
      expect(installing.has(key), `${key} has no install script in the lockfile now`).toBe(true);
    }
    expect(allowScripts, 'allowScripts and REVIEWED say the same').toEqual(
      Object.fromEntries(Object.entries(REVIEWED).map(([name, { allow }]) => [name, allow])),
    );
  });
});
