import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBinaries } from '../src/build.js';
import { ControlPlaneError } from '../src/errors.js';
import type { ProgressEvent } from '../src/progress.js';
import { KUBERNETES_VERSION, KWOK_VERSION } from '../src/release.js';

describe('ensureBinaries', () => {
  it('returns the verified cache entry of the pinned release', async () => {
    const binaries = await ensureBinaries({ build: false });
    expect(binaries.kubernetesVersion).toBe(KUBERNETES_VERSION);
    expect(binaries.stamp.versions).toEqual({ kubernetes: KUBERNETES_VERSION, etcd: 'v3.7.0' });
    expect(Object.keys(binaries.stamp.files).sort()).toEqual([
      'bin/etcd',
      'bin/kube-apiserver',
      'bin/kube-controller-manager',
      'bin/kube-scheduler',
    ]);
    // The key ends with the recipe's hash: entries of other tool sets (other checkouts) coexist.
    expect(basename(binaries.entryDir)).toMatch(
      new RegExp(
        `^kubernetes-v${KUBERNETES_VERSION.replace(/\./g, '\\.')}-go[^-]+-[a-z0-9]+-[a-z0-9]+-[0-9a-f]{8}$`,
      ),
    );
  });

  it('returns the verified kwok entry: the binary, its default stages and the kubelet-API CRDs', async () => {
    const binaries = await ensureBinaries({ build: false });
    expect(binaries.kwok?.kwokVersion).toBe(KWOK_VERSION);
    expect(Object.keys(binaries.kwok!.stamp.files).sort()).toEqual([
      'bin/kwok',
      'share/crds.yaml',
      'share/stages.yaml',
    ]);
    const stages = await readFile(binaries.kwok!.stages, 'utf8');
    for (const stage of [
      'node-initialize',
      'node-heartbeat-with-lease',
      'pod-ready',
      'pod-complete',
      'pod-delete',
    ])
      expect(stages).toContain(`name: ${stage}\n`);
    const crds = await readFile(binaries.kwok!.crds, 'utf8');
    expect(crds).toContain('name: clusterexecs.kwok.x-k8s.io');
    expect(crds).toContain('name: logs.kwok.x-k8s.io');
    expect((await ensureBinaries({ build: false, kwok: false })).kwok).toBeUndefined();
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
