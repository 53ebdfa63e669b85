import { readFileSync } from 'node:fs';
import { URL } from 'node:url';
import { RuntimeError } from './errors.js';

/**
 * @typedef {object} RuntimePins
 * @property {string} floor the lowest Node version the workspace accepts (`engines.node` is `>=floor`)
 * @property {number} primaryNodeLine
 * @property {Record<string, string>} node the pinned version of each tested Node line
 * @property {string} bun
 * @property {string} deno
 */

/** PINS is tools/runtimes/runtimes.json, read once (a JSON import needs Node 20.10+; this runs on 18). */
const PINS = /** @type {RuntimePins} */ (
  JSON.parse(readFileSync(new URL('../runtimes.json', import.meta.url), 'utf8'))
);

/**
 * @typedef {object} RuntimeSpec
 * @property {string} name what was asked for: `node@24`, `bun`, `deno`
 * @property {string} runtime the runtime's own name: `node`, `bun`, `deno`
 * @property {string} version the pinned version
 * @property {string} packageName the registry package that holds the binary on this platform
 * @property {string} executable the binary's path inside that package
 */

/**
 * platformPackage names the registry package with `runtime`'s binary for this platform and the
 * binary's path inside it, or undefined when the registry has none.
 * @param {string} runtime
 * @param {NodeJS.Platform} platform
 * @param {string} arch
 * @param {boolean} musl
 * @returns {{ packageName: string, executable: string } | undefined}
 */
export function platformPackage(runtime, platform, arch, musl) {
  if (platform !== 'linux' && platform !== 'darwin') return undefined;
  if (arch !== 'x64' && arch !== 'arm64') return undefined;
  if (runtime === 'node') {
    // Node's packages have no musl build.
    if (musl) return undefined;
    return { packageName: `node-${platform}-${arch}`, executable: 'bin/node' };
  }
  if (runtime === 'bun') {
    const bunArch = arch === 'arm64' ? 'aarch64' : 'x64';
    const libc = platform === 'linux' && musl ? '-musl' : '';
    return { packageName: `@oven/bun-${platform}-${bunArch}${libc}`, executable: 'bin/bun' };
  }
  if (runtime === 'deno') {
    // Deno publishes glibc builds only for Linux.
    if (musl) return undefined;
    const libc = platform === 'linux' ? '-glibc' : '';
    return { packageName: `@deno/${platform}-${arch}${libc}`, executable: 'deno' };
  }
  return undefined;
}

/** isMusl tells whether this Linux runs on musl (Alpine): Node's report names glibc otherwise. */
function isMusl() {
  if (process.platform !== 'linux') return false;
  const header = /** @type {{ header?: { glibcVersionRuntime?: string } }} */ (
    process.report?.getReport() ?? {}
  ).header;
  return !header?.glibcVersionRuntime;
}

/**
 * runtimeSpec resolves a runtime name (`node@22`, `node@24`, `node@26`, `bun`, `deno`) to its
 * pinned version and this platform's package; throws {@link RuntimeError} for an unknown name or
 * a platform the registry has no build for.
 * @param {string} name
 * @returns {RuntimeSpec}
 */
export function runtimeSpec(name) {
  const [runtime = '', line] = name.split('@');
  /** @type {string | undefined} */
  let version;
  if (runtime === 'node' && line !== undefined) version = PINS.node[line];
  else if ((runtime === 'bun' || runtime === 'deno') && line === undefined) version = PINS[runtime];
  if (version === undefined) {
    throw new RuntimeError(
      'K_RUNTIMES_UNKNOWN',
      `unknown runtime ${JSON.stringify(name)}: expected one of ${RUNTIME_NAMES.join(', ')}`,
      { runtime: name },
    );
  }
  const found = platformPackage(runtime, process.platform, process.arch, isMusl());
  if (!found) {
    throw new RuntimeError(
      'K_RUNTIMES_UNSUPPORTED_PLATFORM',
      `${runtime} ${version} has no registry package for ${process.platform}-${process.arch}${isMusl() ? ' (musl)' : ''}`,
      { runtime: name, version },
    );
  }
  return { name, runtime, version, ...found };
}

/** TESTED_NODE_LINES are the Node major versions the matrix tests, lowest first. */
export const TESTED_NODE_LINES = Object.freeze(
  Object.keys(PINS.node)
    .map(Number)
    .sort((a, b) => a - b),
);

/** PRIMARY_NODE_LINE is the Node line the workspace's scripts and CI run on. */
export const PRIMARY_NODE_LINE = PINS.primaryNodeLine;

/** NODE_FLOOR is the lowest Node version the workspace and its published packages accept. */
export const NODE_FLOOR = PINS.floor;

/** RUNTIME_NAMES are the names {@link runtimeSpec} and `ensureRuntime` accept. */
export const RUNTIME_NAMES = Object.freeze([
  ...TESTED_NODE_LINES.map((line) => `node@${line}`),
  'bun',
  'deno',
]);
