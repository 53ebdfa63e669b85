import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Options } from 'tsup';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];
type TsupPlugin = NonNullable<Options['plugins']>[number];

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
 * oneSharedChunkPlugin makes every entry import every other entry's source, so esbuild sees one
 * set of entries behind each module and writes a single shared chunk instead of one per
 * combination. Node 20's ESM loader pays about a millisecond per file: @k/transport's seven
 * subpaths made ten chunks, all but one loaded by the root (bench/results/package-chunks.md).
 * Tree shaking is off with it, since every module is live from every entry anyway.
 */
function oneSharedChunkPlugin(entrySources: readonly string[]): EsbuildPlugin {
  const entryPaths = new Set(entrySources);
  // Re-exported, not bare-imported: esbuild drops bare imports of a package without side effects.
  const everyEntry = entrySources
    .map((source, index) => `export * as entry${index} from ${JSON.stringify(source)};`)
    .join('\n');
  return {
    name: 'k-one-shared-chunk',
    setup(build) {
      build.initialOptions.treeShaking = false;
      build.onResolve({ filter: /^k-every-entry$/ }, () => ({
        path: 'k-every-entry',
        namespace: 'k-every-entry',
        sideEffects: true,
      }));
      build.onLoad({ filter: /.*/, namespace: 'k-every-entry' }, () => ({
        contents: everyEntry,
        resolveDir: path.dirname(entrySources[0] ?? '.'),
        loader: 'ts',
      }));
      build.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
        if (!entryPaths.has(file)) return undefined;
        const source = await readFile(file, 'utf8');
        return { contents: `${source}\nimport 'k-every-entry';\n`, loader: 'ts' };
      });
    },
  };
}

/**
 * The two modules of yaml's ESM (browser) build that differ from its Node build, and the edits
 * that make them behave as the Node build does: warnings through `process.emitWarning`, and
 * `!!binary` through `Buffer` (lenient base64, a Buffer out) before `atob`/`btoa`. Each `find`
 * must occur exactly once, so a yaml release that changes these files fails the build instead of
 * shipping a different behaviour.
 */
const YAML_NODE_EDITS: Record<
  string,
  { prepend: string; edits: [find: string, replace: string][] }
> = {
  'log.js': {
    prepend: "import process from 'node:process';\n",
    edits: [
      [
        'console.warn(warning);',
        "if (typeof process.emitWarning === 'function') process.emitWarning(warning); else console.warn(warning);",
      ],
    ],
  },
  'schema/yaml-1.1/binary.js': {
    prepend: "import { Buffer } from 'node:buffer';\n",
    edits: [
      [
        "if (typeof atob === 'function') {",
        "if (typeof Buffer === 'function') { return Buffer.from(src, 'base64'); } else if (typeof atob === 'function') {",
      ],
      [
        "if (typeof btoa === 'function') {",
        "if (typeof Buffer === 'function') { str = buf instanceof Buffer ? buf.toString('base64') : Buffer.from(buf.buffer).toString('base64'); } else if (typeof btoa === 'function') {",
      ],
    ],
  },
};

/**
 * bundledYamlPlugin builds the `yaml` library into the package's output instead of importing it:
 * yaml's Node build is some 80 CommonJS files, which cost 33–45 ms to load, while one bundle of
 * its ESM build loads in about 5 (docs/decisions/0015). The ESM build is the browser build; the
 * two modules where it differs from the Node build are edited back to the Node behaviour
 * (`YAML_NODE_EDITS`). yaml's licence text is written beside the output as
 * `dist/yaml.LICENSE.txt`.
 */
export function bundledYamlPlugin(): EsbuildPlugin {
  const yamlRoot = path.dirname(createRequire(import.meta.url).resolve('yaml/package.json'));
  const esmBuild = path.join(yamlRoot, 'browser', 'dist');
  return {
    name: 'k-bundled-yaml',
    setup(build) {
      build.onResolve({ filter: /^yaml$/ }, () => ({
        path: path.join(yamlRoot, 'browser', 'index.js'),
      }));
      build.onLoad({ filter: /\.js$/ }, async ({ path: file }) => {
        const edit = YAML_NODE_EDITS[path.relative(esmBuild, file).split(path.sep).join('/')];
        if (!edit) return undefined;
        let source = await readFile(file, 'utf8');
        for (const [find, replace] of edit.edits) {
          if (source.split(find).length !== 2) {
            throw new Error(`bundled yaml: ${file} no longer holds ${JSON.stringify(find)} once`);
          }
          source = source.replace(find, replace);
        }
        return { contents: edit.prepend + source, loader: 'js' };
      });
      build.onEnd(async () => {
        const { outdir } = build.initialOptions;
        if (outdir === undefined) return;
        await mkdir(outdir, { recursive: true });
        const licence = await readFile(path.join(yamlRoot, 'LICENSE'), 'utf8');
        const { version } = JSON.parse(
          await readFile(path.join(yamlRoot, 'package.json'), 'utf8'),
        ) as { version: string };
        await writeFile(
          path.join(outdir, 'yaml.LICENSE.txt'),
          `This package's dist/ contains yaml ${version} (https://github.com/eemeli/yaml), under this licence (ISC):\n\n${licence}`,
        );
      });
    },
  };
}

interface PackageBuildOptions extends Options {
  /** extraEntries are built beside the exports map's entries (e.g. a command's main). */
  extraEntries?: Record<string, string>;
  /**
   * oneSharedChunk puts all shared code in one chunk: for packages whose subpaths split the API,
   * not the load (the root loads nearly everything anyway). `except` names entries that exist to
   * load less (like @k/rest's `errors`): their code stays in a chunk of its own. `among` joins
   * only the entries whose name matches, for subpaths the root loads all of but that are also
   * imported alone (@k/clientset's API groups: one chunk of every group's definitions instead of
   * one file per group).
   */
  oneSharedChunk?: boolean | { except: readonly string[] } | { among: RegExp };
  /** bundleYaml builds the yaml library into the output ({@link bundledYamlPlugin}). */
  bundleYaml?: boolean;
}

/**
 * relativeMapSourcesPlugin rewrites the absolute `sources` (and `file`) tsup leaves in CommonJS
 * maps (its cjs-splitting step hands sucrase the chunk's absolute path) relative to the map, so a
 * published map names files of the tarball, never the folders of the machine that built it.
 */
function relativeMapSourcesPlugin(): TsupPlugin {
  return {
    name: 'k-relative-map-sources',
    async buildEnd({ writtenFiles }) {
      for (const { name } of writtenFiles) {
        if (!name.endsWith('.map')) continue;
        // writtenFiles names are relative to tsup's cwd, the package folder.
        const file = path.resolve(name);
        const map = JSON.parse(await readFile(file, 'utf8')) as {
          sources: string[];
          file?: string;
        };
        const absoluteFile = map.file !== undefined && path.isAbsolute(map.file);
        if (!absoluteFile && !map.sources.some((source) => path.isAbsolute(source))) continue;
        map.sources = map.sources.map((source) =>
          path.isAbsolute(source) ? path.relative(path.dirname(file), source) : source,
        );
        if (map.file !== undefined) map.file = path.basename(map.file);
        await writeFile(file, JSON.stringify(map));
      }
    },
  };
}

/**
 * packageBuild is the build every @k library shares: ESM and CommonJS with declarations for each
 * entry of its exports map (plus `extraEntries`), for Node 22 and newer. Shared chunks keep one copy of each
 * class across entry points, so `instanceof` and module state hold whichever subpath a program
 * imports first.
 */
export function packageBuild(
  directory: string,
  {
    extraEntries = {},
    oneSharedChunk = false,
    bundleYaml = false,
    ...overrides
  }: PackageBuildOptions = {},
): Options {
  const exportEntries = packageEntries(directory);
  const joins = (name: string): boolean =>
    typeof oneSharedChunk !== 'object'
      ? true
      : 'among' in oneSharedChunk
        ? oneSharedChunk.among.test(name)
        : !oneSharedChunk.except.includes(name);
  const joined = Object.entries(exportEntries)
    .filter(([name]) => joins(name))
    .map(([, source]) => path.join(directory, source));
  return {
    entry: { ...exportEntries, ...extraEntries },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node22',
    splitting: true,
    esbuildPlugins: [
      ...(oneSharedChunk ? [oneSharedChunkPlugin(joined)] : []),
      ...(bundleYaml ? [bundledYamlPlugin()] : []),
    ],
    plugins: [relativeMapSourcesPlugin()],
    ...(bundleYaml ? { noExternal: ['yaml'] } : {}),
    ...overrides,
  };
}
