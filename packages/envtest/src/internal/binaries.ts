import path from 'node:path';
import { ensureBinaries, type Binaries } from '@k/testenv';
import { EnvtestError } from '../errors.js';
import type { ResolvedEnvironmentOptions } from '../options.js';
import type { ComponentName, EnvironmentBinaries } from '../types.js';

/** FoundBinaries are the binaries a start runs, where they came from, and what they can run. */
export interface FoundBinaries {
  /** engine: what the engine's startControlPlane takes as `binaries`. */
  readonly engine: Binaries;
  readonly description: EnvironmentBinaries;
  readonly components: readonly ComponentName[];
  /** where names the source in messages. */
  readonly where: string;
}

/**
 * findBinaries finds the binaries for a start: the verified cache entry, else a Go build into the
 * cache when `build` allows it (with progress), else the engine's BINARIES_MISSING.
 */
export async function findBinaries(options: ResolvedEnvironmentOptions): Promise<FoundBinaries> {
  if (typeof options.binaries === 'object' || process.env.KUBEBUILDER_ASSETS) {
    if (typeof options.binaries === 'object' || options.binaries === 'auto') {
      throw new EnvtestError(
        'ERR_ENVTEST_BINARIES_MISSING',
        "binaries from a directory or KUBEBUILDER_ASSETS are not supported by this build yet; use binaries: 'cache'",
        { step: 'resolve binaries' },
      );
    }
  }
  const common = {
    cacheRoot: options.cacheRoot,
    kwok: options.kwok,
    onProgress: options.buildProgress,
  };
  let source: 'cache' | 'build' = 'cache';
  let engine: Binaries;
  try {
    engine = await ensureBinaries({ ...common, build: false });
  } catch (error) {
    if (!options.build || (error as { code?: unknown }).code !== 'BINARIES_MISSING') throw error;
    source = 'build';
    engine = await ensureBinaries({ ...common, build: true });
  }
  const directory = path.dirname(engine.kubeApiServer);
  return {
    engine,
    description: { source, directory },
    components: [
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      ...(engine.kwok ? (['kwok'] as const) : []),
    ],
    where: `the cache ${options.cacheRoot}`,
  };
}
