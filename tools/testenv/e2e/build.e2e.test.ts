import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBinaries } from '../src/build.js';
import { ControlPlaneError } from '../src/errors.js';
import type { ProgressEvent } from '../src/progress.js';
import { KUBERNETES_VERSION } from '../src/release.js';

describe('ensureBinaries', () => {
  it('returns the verified cache entry of the pinned release', async () => {
    const binaries = await ensureBinaries({ build: false });
    expect(binaries.stamp).toMatchObject({
      kubernetesVersion: KUBERNETES_VERSION,
      etcdVersion: 'v3.7.0',
    });
    expect(Object.keys(binaries.stamp.binaries).sort()).toEqual([
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
    ]);
  });

  // Uses the Go module proxy: the release does not exist, so the first step fails.
  it('names the failing build step, shows its output and leaves no lock or temp dir', async () => {
    const cacheRoot = await mkdtemp(join(tmpdir(), 'k-testenv-build-fail-'));
    try {
      const events: ProgressEvent[] = [];
      const error = await ensureBinaries({
        cacheRoot,
        kubernetesVersion: '1.99.0',
        onProgress: (event) => events.push(event),
      }).catch((caught: unknown) => caught);
      expect(ControlPlaneError.isInstance(error)).toBe(true);
      const failure = error as ControlPlaneError;
      expect(failure.code).toBe('BUILD_FAILED');
      expect(failure.step).toBe('download k8s.io/kubernetes');
      expect(failure.message).toContain('step "download k8s.io/kubernetes" failed');
      expect(failure.logTail).toContain('v1.99.0');
      expect(
        events.some(
          (event) => event.kind === 'start' && event.step === 'download k8s.io/kubernetes',
        ),
      ).toBe(true);
      expect(await readdir(cacheRoot)).toEqual([]);
    } finally {
      await rm(cacheRoot, { recursive: true, force: true });
    }
  });
});
