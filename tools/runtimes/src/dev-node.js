import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RuntimeError } from './errors.js';

/**
 * floorOf reads the lowest version an `engines.node` range accepts. Only `>=X.Y.Z` is read (the
 * form the workspace uses); anything else is a {@link RuntimeError} `K_RUNTIMES_ENGINES`.
 * @param {string | undefined} range
 * @returns {string}
 */
export function floorOf(range) {
  const match = /^\s*>=\s*v?(\d+)\.(\d+)\.(\d+)\s*$/.exec(range ?? '');
  if (!match) {
    throw new RuntimeError(
      'K_RUNTIMES_ENGINES',
      `engines.node ${JSON.stringify(range)} is not of the form ">=X.Y.Z"`,
    );
  }
  return `${match[1]}.${match[2]}.${match[3]}`;
}

/**
 * compareVersions orders two `X.Y.Z` versions (prerelease suffixes ignored): negative when `a`
 * is older, 0 when equal, positive when newer.
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
export function compareVersions(a, b) {
  const parse = (/** @type {string} */ version) =>
    (version.replace(/^v/, '').split(/[-+]/)[0] ?? '')
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const left = parse(a);
  const right = parse(b);
  for (let index = 0; index < 3; index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * readEnginesFloor reads the floor of `engines.node` in the package.json of `directory` (npm runs
 * a script in its package's folder, so the CLI reads the workspace's own manifest).
 * @param {string} directory
 * @returns {Promise<string>}
 */
export async function readEnginesFloor(directory) {
  const file = path.join(directory, 'package.json');
  /** @type {{ engines?: { node?: string } }} */
  let manifest;
  try {
    manifest = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new RuntimeError('K_RUNTIMES_ENGINES', `cannot read ${file}`, { cause: error });
  }
  return floorOf(manifest.engines?.node);
}

/**
 * DevNodeDecision says how a workspace script runs: on the invoking Node (`primary` undefined)
 * or on the primary line because the invoking one is older than the floor (then `message` is the
 * one line to tell the user).
 * @typedef {object} DevNodeDecision
 * @property {boolean} switches
 * @property {string | undefined} message
 */

/**
 * devNodeDecision decides whether `version` (the invoking Node's) runs the workspace's scripts
 * itself: it does when it is at least `floor`; otherwise they run on `primaryVersion`.
 * @param {string} version
 * @param {string} floor
 * @param {string} primaryVersion
 * @returns {DevNodeDecision}
 */
export function devNodeDecision(version, floor, primaryVersion) {
  if (compareVersions(version, floor) >= 0) return { switches: false, message: undefined };
  return {
    switches: true,
    message:
      `k-runtimes: Node ${version.replace(/^v/, '')} is older than this workspace's floor ${floor}: ` +
      `running on Node ${primaryVersion} from tools/runtimes`,
  };
}
