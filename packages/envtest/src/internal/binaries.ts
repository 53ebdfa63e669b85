import { resolveBinaries, type ResolvedBinaries } from '@k/testenv';
import type { ResolvedEnvironmentOptions } from '../options.js';
import type { ComponentName, EnvironmentBinaries } from '../types.js';

/** BUILD_COMMAND is the command messages suggest for building the binaries. */
const BUILD_COMMAND = 'npx k-envtest build';

/** FoundBinaries are the binaries a start runs, where they came from, and what they can run. */
export interface FoundBinaries {
  /** engine: what the engine's startControlPlane takes as `binaries`. */
  readonly engine: ResolvedBinaries;
  readonly description: EnvironmentBinaries;
  readonly components: readonly ComponentName[];
  /** where names the source in messages. */
  readonly where: string;
}

/**
 * findBinaries finds the binaries for a start with the engine's resolveBinaries: an explicit
 * directory, else (unless `binaries: 'cache'`) `TEST_ASSET_*` and `KUBEBUILDER_ASSETS`, else the
 * verified cache entry, else a Go build into the cache when `build` allows it (progress through
 * `buildProgress`), else BINARIES_MISSING naming what was looked at and the two ways out.
 */
export async function findBinaries(
  options: ResolvedEnvironmentOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<FoundBinaries> {
  const engine = await resolveBinaries({
    binaries: options.binaries,
    build: options.build,
    cacheRoot: options.cacheRoot,
    kwok: options.kwok,
    onProgress: options.buildProgress,
    env,
    buildCommand: BUILD_COMMAND,
  });
  // The engine reports the TEST_ASSET_* variables as the environment; name them apart.
  const source =
    engine.source === 'KUBEBUILDER_ASSETS' && !env.KUBEBUILDER_ASSETS
      ? 'TEST_ASSET'
      : engine.source;
  const where =
    source === 'directory'
      ? `the directory ${engine.directory}`
      : source === 'KUBEBUILDER_ASSETS' || source === 'TEST_ASSET'
        ? `${source === 'TEST_ASSET' ? 'the TEST_ASSET_* variables' : 'KUBEBUILDER_ASSETS'} (${engine.directory})`
        : `the cache (${engine.directory})`;
  return {
    engine,
    description: {
      source,
      directory: engine.directory,
      ...(engine.kubectl !== undefined ? { kubectl: engine.kubectl } : {}),
    },
    components: engine.components,
    where,
  };
}
