import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/** PackedPackage is one public package as `npm publish --dry-run` would upload it. */
export interface PackedPackage {
  /** directory is the package's folder, whose files are the tarball's. */
  directory: string;
  /** manifest is its package.json. */
  manifest: PackageManifest;
  /** files are the tarball's paths, relative to `directory`, as npm listed them. */
  files: readonly string[];
}

/** PackageManifest is the part of a package.json the checks read. */
export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean | undefined;
  license?: string | undefined;
  main?: string | undefined;
  module?: string | undefined;
  types?: string | undefined;
  bin?: string | Record<string, string> | undefined;
  exports?: unknown;
  publishConfig?: Record<string, unknown> | undefined;
  dependencies?: Record<string, string> | undefined;
  peerDependencies?: Record<string, string> | undefined;
  optionalDependencies?: Record<string, string> | undefined;
}

/**
 * NOT_SHIPPED matches what a tarball must not carry: tests, type tests, fixtures, e2e suites,
 * build and test configuration, TypeScript build state.
 */
const NOT_SHIPPED: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /\.test\.[cm]?[jt]sx?$/, what: 'a test' },
  { pattern: /\.test-d\.[cm]?ts$/, what: 'a type test' },
  { pattern: /(^|\/)__fixtures__\//, what: 'a test fixture' },
  { pattern: /(^|\/)e2e\//, what: 'an e2e test file' },
  { pattern: /(^|\/)(vitest|tsup|vite)\.config\.[cm]?[jt]s$/, what: 'build or test configuration' },
  { pattern: /(^|\/)tsconfig(\.[\w-]+)?\.json$/, what: 'a tsconfig' },
  { pattern: /\.tsbuildinfo$/, what: 'TypeScript build state' },
];

/** SOURCE_MAPPING_URL finds the map a JavaScript or declaration file names (its last line). */
const SOURCE_MAPPING_URL = /\/\/# sourceMappingURL=(\S+)\s*$/;

/**
 * tarballProblems lists what is wrong with one package as it would be published, one line per
 * problem naming the file (empty when nothing is): a README and a LICENSE at its root, and its
 * CHANGELOG when it has one (after the first `changeset version`); nothing
 * of NOT_SHIPPED; every file the manifest points to (`main`, `module`, `types`, `bin`, every
 * `exports` target) in the tarball; public access; its runtime dependencies on workspace
 * packages public and in range of their versions (`workspaceVersions`, private ones absent);
 * every `sourceMappingURL` naming a map in the tarball, and every source of every map either in
 * the tarball or carried in the map (`sourcesContent`), by a relative path (an absolute one is
 * the build machine's, which users do not have and should not see). Files are read from
 * `directory`, so the package must be built.
 */
export function tarballProblems(
  packed: PackedPackage,
  workspaceVersions: ReadonlyMap<string, string | undefined>,
): string[] {
  const { directory, manifest } = packed;
  const files = new Set(packed.files);
  const problems: string[] = [];
  const problem = (text: string) => problems.push(`${manifest.name}: ${text}`);

  if (!files.has('README.md')) problem('README.md is not in the tarball');
  if (existsSync(path.join(directory, 'CHANGELOG.md')) && !files.has('CHANGELOG.md')) {
    problem('CHANGELOG.md is not in the tarball (npm packs it only when `files` names it)');
  }
  if (![...files].some((file) => /^licen[cs]e(\.md|\.txt)?$/i.test(file))) {
    problem(`no LICENSE file in the tarball (license: ${manifest.license ?? 'none'})`);
  }
  for (const file of files) {
    const match = NOT_SHIPPED.find(({ pattern }) => pattern.test(file));
    if (match) problem(`${file} is ${match.what}, which users do not need`);
  }
  for (const [field, target] of manifestTargets(manifest)) {
    const file = path.posix.normalize(target);
    if (!files.has(file)) problem(`${field} points to ${target}, which is not in the tarball`);
  }
  if (manifest.publishConfig?.access !== 'public') {
    problem('publishConfig.access is not "public" (a scoped package is published restricted)');
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (!workspaceVersions.has(name)) continue;
      const version = workspaceVersions.get(name);
      if (version === undefined) problem(`${field} names ${name}, which is private`);
      else if (!inRange(version, range)) {
        problem(`${field}: ${name}@${range} does not accept the workspace's ${version}`);
      }
    }
  }
  for (const file of files) {
    if (/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file)) {
      const url = SOURCE_MAPPING_URL.exec(read(directory, file))?.[1];
      if (url && !url.startsWith('data:')) {
        const map = path.posix.join(path.posix.dirname(file), url);
        if (!files.has(map)) problem(`${file} names the source map ${url}, not in the tarball`);
      }
    }
    if (file.endsWith('.map')) {
      for (const text of sourceMapProblems(file, read(directory, file), files)) problem(text);
    }
  }
  return problems;
}

function read(directory: string, file: string): string {
  return readFileSync(path.join(directory, file), 'utf8');
}

/** manifestTargets lists every file a manifest points to, with the field that does. */
function manifestTargets(manifest: PackageManifest): [string, string][] {
  const targets: [string, string][] = [];
  for (const field of ['main', 'module', 'types'] as const) {
    const target = manifest[field];
    if (target) targets.push([field, target]);
  }
  if (typeof manifest.bin === 'string') targets.push(['bin', manifest.bin]);
  for (const [name, target] of Object.entries(
    typeof manifest.bin === 'object' ? manifest.bin : {},
  )) {
    targets.push([`bin.${name}`, target]);
  }
  const walk = (value: unknown, field: string) => {
    if (typeof value === 'string') {
      if (!value.includes('*')) targets.push([field, value]);
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) walk(inner, `${field}[${key}]`);
    }
  };
  walk(manifest.exports, 'exports');
  return targets;
}

/** sourceMapProblems checks one map of the tarball (see {@link tarballProblems}). */
function sourceMapProblems(file: string, text: string, files: ReadonlySet<string>): string[] {
  let map: { sources?: unknown; sourcesContent?: unknown; sourceRoot?: unknown; file?: unknown };
  try {
    map = JSON.parse(text) as typeof map;
  } catch {
    return [`${file} is not a JSON source map`];
  }
  const sources = Array.isArray(map.sources) ? (map.sources as unknown[]) : [];
  const contents = Array.isArray(map.sourcesContent) ? (map.sourcesContent as unknown[]) : [];
  const sourceRoot = typeof map.sourceRoot === 'string' ? map.sourceRoot : '';
  const problems: string[] = [];
  if (typeof map.file === 'string' && path.posix.isAbsolute(map.file)) {
    problems.push(`${file} names its file by an absolute path (${map.file})`);
  }
  sources.forEach((source, index) => {
    if (typeof source !== 'string') return;
    if (path.posix.isAbsolute(source) || /^[a-z]+:/i.test(source) || sourceRoot.startsWith('/')) {
      problems.push(`${file} names a source by an absolute path (${source})`);
      return;
    }
    if (typeof contents[index] === 'string') return;
    const resolved = path.posix.normalize(
      path.posix.join(path.posix.dirname(file), sourceRoot, source),
    );
    if (!files.has(resolved)) {
      problems.push(`${file} maps to ${source}, which is neither in the tarball nor in the map`);
    }
  });
  return problems;
}

/** WORKSPACE_RANGE matches the range forms this workspace writes for its own packages. */
const WORKSPACE_RANGE = /^(\*|[~^]?\d+\.\d+\.\d+)$/;

/**
 * inRange says whether `version` satisfies `range` (semver's rules, as npm applies them) for the
 * ranges this workspace writes for its own packages: `*`, an exact version, `^x.y.z` and `~x.y.z`
 * (a range of another form is reported as not accepting, so it gets looked at).
 */
export function inRange(version: string, range: string): boolean {
  return WORKSPACE_RANGE.test(range) && semver.satisfies(version, range);
}
