import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { readManifest, WORKSPACE_ROOT, workspacePackages } from './workspace-packages.js';

interface Manifest {
  name?: string;
  private?: boolean;
  engines?: { node?: string };
}

/** PINS is tools/runtimes/runtimes.json: the floor and the pinned version of each tested line. */
const PINS = JSON.parse(
  readFileSync(path.join(WORKSPACE_ROOT, 'tools/runtimes/runtimes.json'), 'utf8'),
) as { floor: string; node: Record<string, string> };

describe('engines.node', () => {
  it('of every published package is the floor the matrix tests (runtimes.json)', () => {
    const published = workspacePackages<Manifest>()
      .map(({ manifest }) => manifest)
      .filter((found) => !found.private);
    expect(published.length).toBeGreaterThanOrEqual(7);
    const engines: Record<string, string | undefined> = Object.fromEntries(
      published.map((found) => [found.name ?? '', found.engines?.node]),
    );
    expect(engines).toEqual(
      Object.fromEntries(published.map((found) => [found.name ?? '', `>=${PINS.floor}`])),
    );
  });

  it("of the workspace is the same floor (its scripts' dev-path reads it)", () => {
    expect(readManifest<Manifest>('.').engines?.node).toBe(`>=${PINS.floor}`);
  });

  it('is a floor inside the lowest tested line, at or below the version the matrix runs', () => {
    const lowest = Math.min(...Object.keys(PINS.node).map(Number));
    expect(semver.major(PINS.floor)).toBe(lowest);
    expect(semver.lte(PINS.floor, PINS.node[String(lowest)] ?? '')).toBe(true);
  });
});
