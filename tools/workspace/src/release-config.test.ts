import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspacePackages } from './workspace-packages.js';

// How a release is cut (README, "Releases"): `npm run release:version` applies the pending
// changesets (.changeset/*.md) to the public packages, which move together; the private
// workspaces (apps, tools, bench) are never versioned or published, but their ranges on the
// public packages follow. These tests hold the changesets configuration, the pending changesets
// and the lockfile to that.

const root = path.join(import.meta.dirname, '../../..');

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  workspaces?: string[];
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

interface ChangesetsConfig {
  fixed: string[][];
  linked: string[][];
  access: string;
  ignore: string[];
  privatePackages: { version: boolean; tag: boolean };
}

const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
] as const;

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(root, file), 'utf8')) as T;
}

/** matches is changesets' package-name glob (micromatch: `*` is any run of characters but `/`). */
function matches(pattern: string, name: string): boolean {
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  return new RegExp(`^${source}$`).test(name);
}

/** pendingChangesets reads each .changeset/*.md's front matter: package name → bump. */
function pendingChangesets(): { file: string; releases: Record<string, string> }[] {
  const directory = path.join(root, '.changeset');
  return readdirSync(directory)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => {
      const text = readFileSync(path.join(directory, file), 'utf8');
      const frontMatter = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '';
      const releases: Record<string, string> = {};
      for (const line of frontMatter.split('\n')) {
        const match = /^\s*['"]?([^'":]+)['"]?\s*:\s*(\S+)\s*$/.exec(line);
        if (match) releases[match[1]!] = match[2]!;
      }
      return { file, releases };
    });
}

const all = workspacePackages<Manifest>();
const published = all.filter(({ manifest }) => !manifest.private);
const config = readJson<ChangesetsConfig>('.changeset/config.json');

describe('the release configuration', () => {
  it('publishes packages/* and nothing else', () => {
    expect(published.map(({ directory }) => directory).sort()).toEqual(
      all
        .filter(({ directory }) => directory.startsWith('packages/'))
        .map(({ directory }) => directory)
        .sort(),
    );
  });

  it('moves every public package together, in one fixed group, at one version', () => {
    const groups = config.fixed.map((group) =>
      published
        .filter(({ manifest }) => group.some((pattern) => matches(pattern, manifest.name)))
        .map(({ manifest }) => manifest.name),
    );
    expect(groups).toEqual([published.map(({ manifest }) => manifest.name)]);
    expect(config.linked).toEqual([]);
    expect(config.ignore).toEqual([]);
    expect(new Set(published.map(({ manifest }) => manifest.version)).size).toBe(1);
  });

  it("ships the repository's LICENSE in every public package, under the license it names", () => {
    const licence = readFileSync(path.join(root, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    for (const { directory, manifest } of published) {
      expect(readFileSync(path.join(root, directory, 'LICENSE'), 'utf8'), directory).toBe(licence);
      expect(manifest.license, directory).toBe('Apache-2.0');
    }
  });

  it('versions, tags and publishes no private workspace', () => {
    expect(config.privatePackages).toEqual({ version: false, tag: false });
    expect(config.access).toBe('public');
  });

  it('has pending changesets that name public packages only, with a semver bump', () => {
    const names = new Set(published.map(({ manifest }) => manifest.name));
    const wrong = pendingChangesets().flatMap(({ file, releases }) =>
      Object.entries(releases)
        .filter(([name, bump]) => !names.has(name) || !['patch', 'minor', 'major'].includes(bump))
        .map(([name, bump]) => `${file}: ${name}: ${bump}`),
    );
    expect(wrong, 'a private workspace gets no release, so its changeset would be lost').toEqual(
      [],
    );
  });

  it('refreshes the lockfile when it versions the packages', () => {
    // `changeset version` edits versions and ranges in the manifests only. npm ci still installs
    // (workspaces are links), so nothing fails: the lockfile keeps the old versions until the
    // next npm install rewrites them inside someone else's change.
    expect(readJson<Manifest>('package.json').scripts?.['release:version']).toMatch(
      /^changeset version && npm install --package-lock-only && /,
    );
  });

  it('updates the version constants in code when it versions the packages', () => {
    // @k/transport's user agent names its version; its unit test holds it to the manifest.
    expect(readJson<Manifest>('package.json').scripts?.['release:version']).toMatch(
      / && tsx tools\/workspace\/src\/release-version-constants\.ts$/,
    );
  });

  it("has a lockfile that records every workspace's version and ranges on the others", () => {
    const lockfile = readJson<{ packages: Record<string, Partial<Manifest>> }>('package-lock.json');
    const names = new Set(all.map(({ manifest }) => manifest.name));
    const internal = (manifest: Partial<Manifest>) =>
      Object.fromEntries(
        DEPENDENCY_FIELDS.flatMap((field) =>
          Object.entries(manifest[field] ?? {})
            .filter(([name]) => names.has(name))
            .map(([name, range]) => [`${field}.${name}`, range]),
        ),
      );
    for (const { directory, manifest } of all) {
      const locked = lockfile.packages[directory];
      expect(locked, `${directory} in package-lock.json`).toBeDefined();
      expect(
        { version: locked?.version, ...internal(locked ?? {}) },
        `${directory}: run npm install --package-lock-only`,
      ).toEqual({ version: manifest.version, ...internal(manifest) });
    }
  });
});
