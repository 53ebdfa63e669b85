import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Options } from 'tsup';

interface ExportTarget {
  '@k/source'?: string;
  import?: { default?: string };
}

/**
 * packageEntries reads the build entries of the package in `directory` from its `exports` map:
 * each subpath's `@k/source` file, built to the name its `import` target has under `dist/`
 * (`./errors` → `./dist/errors.js` ← `./src/error-exports.ts` gives `errors: src/error-exports.ts`).
 * The map is the one list of entry points: adding a subpath is one edit of package.json.
 */
export function packageEntries(directory: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
    exports: Record<string, ExportTarget | string>;
  };
  const entries: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string') continue; // ./package.json
    const source = target['@k/source'];
    const output = target.import?.default;
    if (!source || !output?.startsWith('./dist/') || !output.endsWith('.js')) {
      throw new Error(`${directory}: exports['${subpath}'] needs @k/source and ./dist/….js`);
    }
    entries[output.slice('./dist/'.length, -'.js'.length)] = source.slice('./'.length);
  }
  return entries;
}

/**
 * packageBuild is the build every @k library shares: ESM and CommonJS with declarations for each
 * entry of its exports map (plus `extraEntries`, e.g. a command's main), for Node 20. Shared
 * chunks keep one copy of each class across entry points, so `instanceof` and module state hold
 * whichever subpath a program imports first.
 */
export function packageBuild(
  directory: string,
  { extraEntries = {}, ...overrides }: Options & { extraEntries?: Record<string, string> } = {},
): Options {
  return {
    entry: { ...packageEntries(directory), ...extraEntries },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    splitting: true,
    ...overrides,
  };
}
