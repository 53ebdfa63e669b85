import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareVersions } from './dev-node.js';
import { NODE_FLOOR, TESTED_NODE_LINES } from './index.js';
import { runtimeSpec } from './pins.js';

const WORKSPACE_ROOT = path.resolve(import.meta.dirname, '../../..');

interface Manifest {
  name?: string;
  private?: boolean;
  engines?: { node?: string };
  workspaces?: string[];
}

function manifest(folder: string): Manifest {
  return JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as Manifest;
}

/** workspaceFolders lists the folders of the root's `workspaces` globs (`dir/*` or `dir`). */
function workspaceFolders(): string[] {
  return (manifest(WORKSPACE_ROOT).workspaces ?? []).flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [path.join(WORKSPACE_ROOT, pattern)];
    const parent = path.join(WORKSPACE_ROOT, pattern.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(parent, entry.name))
      .filter((folder) => readdirSync(folder).includes('package.json'));
  });
}

describe('engines.node', () => {
  it('of every published package is the floor the matrix tests (runtimes.json)', () => {
    const published = workspaceFolders()
      .map(manifest)
      .filter((found) => !found.private);
    expect(published.length).toBeGreaterThanOrEqual(7);
    const engines: Record<string, string | undefined> = Object.fromEntries(
      published.map((found) => [found.name ?? '', found.engines?.node]),
    );
    expect(engines).toEqual(
      Object.fromEntries(published.map((found) => [found.name ?? '', `>=${NODE_FLOOR}`])),
    );
  });

  it("of the workspace is the same floor (its scripts' dev-path reads it)", () => {
    expect(manifest(WORKSPACE_ROOT).engines?.node).toBe(`>=${NODE_FLOOR}`);
  });

  it('is a floor inside the lowest tested line, at or below the version the matrix runs', () => {
    const lowest = TESTED_NODE_LINES[0]!;
    expect(NODE_FLOOR.split('.')[0]).toBe(String(lowest));
    expect(compareVersions(NODE_FLOOR, runtimeSpec(`node@${lowest}`).version)).toBeLessThanOrEqual(
      0,
    );
  });
});
