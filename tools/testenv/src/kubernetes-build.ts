import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CacheEntry, EntryRecipe } from './build.js';
import { BINARY_NAMES } from './cache-layout.js';
import type { BuildStamp } from './cache-entry.js';
import { ControlPlaneError } from './errors.js';
import {
  etcdServerVersion,
  renderEtcdWrapperGoMod,
  renderKubernetesWrapperGoMod,
} from './go-mod.js';
import { kubernetesLdflags, toBuildDate } from './ldflags.js';
import { checkVersion } from './run-command.js';

/** The commands of k8s.io/kubernetes that are built, in one `go build`. */
const KUBERNETES_COMMANDS = [
  'k8s.io/kubernetes/cmd/kube-apiserver',
  'k8s.io/kubernetes/cmd/kube-controller-manager',
  'k8s.io/kubernetes/cmd/kube-scheduler',
];
/** Build tags upstream's hack/lib/golang.sh uses for release binaries (none is required). */
const KUBERNETES_BUILD_TAGS = 'selinux,notest,grpcnotrace';

/** KubernetesBinaries are the absolute paths of a verified Kubernetes cache entry's executables. */
export interface KubernetesBinaries {
  readonly etcd: string;
  readonly kubeApiServer: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  /** `1.X.Y`. */
  readonly kubernetesVersion: string;
  readonly entryDir: string;
  readonly stamp: BuildStamp;
}

/** toKubernetesBinaries names the executables of a verified Kubernetes entry. */
export function toKubernetesBinaries(entry: CacheEntry): KubernetesBinaries {
  const bin = entry.layout.binDir;
  return {
    etcd: join(bin, 'etcd'),
    kubeApiServer: join(bin, 'kube-apiserver'),
    kubeControllerManager: join(bin, 'kube-controller-manager'),
    kubeScheduler: join(bin, 'kube-scheduler'),
    kubernetesVersion: entry.stamp.versions.kubernetes ?? '',
    entryDir: entry.layout.entryDir,
    stamp: entry.stamp,
  };
}

/**
 * kubernetesRecipe builds kube-apiserver, kube-controller-manager and kube-scheduler of release
 * `1.X.Y` from a generated wrapper module, and etcd at the version that release requires from a
 * second one.
 */
export function kubernetesRecipe(kubernetesVersion: string): EntryRecipe {
  return {
    name: 'kubernetes',
    version: kubernetesVersion,
    recipe: { commands: KUBERNETES_COMMANDS, tags: KUBERNETES_BUILD_TAGS, binaries: BINARY_NAMES },
    files: BINARY_NAMES.map((name) => `bin/${name}`),
    title: `Kubernetes v${kubernetesVersion}`,
    coldBuildNote: 'a cold build takes about 6-10 minutes and 2.5 GiB of memory on 2 cores',
    async build({ work, go, progress }) {
      const kubernetesDir = join(work, 'src', 'kubernetes');
      const etcdDir = join(work, 'src', 'etcd');
      const binDir = join(work, 'bin');
      await Promise.all(
        [kubernetesDir, etcdDir, binDir].map((dir) => mkdir(dir, { recursive: true })),
      );
      const download = await go(
        'download k8s.io/kubernetes',
        ['mod', 'download', '-json', `k8s.io/kubernetes@v${kubernetesVersion}`],
        work,
        'download',
      );
      const downloaded = JSON.parse(download.stdout) as {
        GoMod?: string;
        Info?: string;
        Error?: string;
      };
      if (!downloaded.GoMod) {
        throw new ControlPlaneError(
          'BUILD_FAILED',
          `step "download k8s.io/kubernetes" gave no go.mod: ${downloaded.Error ?? download.stdout}`,
          { step: 'download k8s.io/kubernetes' },
        );
      }
      const releaseGoMod = await readFile(downloaded.GoMod, 'utf8');
      // The tag's commit time: a reproducible build date that matches the release.
      const info = downloaded.Info
        ? (JSON.parse(await readFile(downloaded.Info, 'utf8')) as { Time?: string })
        : {};
      const buildDate = toBuildDate(info.Time ? new Date(info.Time) : new Date());

      await writeFile(
        join(kubernetesDir, 'go.mod'),
        renderKubernetesWrapperGoMod({
          kubernetesVersion,
          releaseGoMod,
          tools: KUBERNETES_COMMANDS,
        }),
      );
      await go('go mod tidy (kubernetes)', ['mod', 'tidy'], kubernetesDir, 'kubernetes-tidy');
      await go(
        'go build kube-apiserver kube-controller-manager kube-scheduler',
        [
          'build',
          '-trimpath',
          '-buildvcs=false',
          `-tags=${KUBERNETES_BUILD_TAGS}`,
          `-ldflags=${kubernetesLdflags(kubernetesVersion, buildDate)}`,
          '-o',
          `${binDir}/`,
          ...KUBERNETES_COMMANDS,
        ],
        kubernetesDir,
        'kubernetes-build',
        true,
      );

      const etcdVersion = etcdServerVersion(releaseGoMod);
      if (!etcdVersion) {
        throw new ControlPlaneError(
          'BUILD_FAILED',
          `k8s.io/kubernetes v${kubernetesVersion} does not require go.etcd.io/etcd/server/v3`,
          { step: 'etcd version' },
        );
      }
      await writeFile(
        join(etcdDir, 'go.mod'),
        renderEtcdWrapperGoMod({ etcdVersion, goVersion: parseGoDirective(releaseGoMod) }),
      );
      await go('go mod tidy (etcd)', ['mod', 'tidy'], etcdDir, 'etcd-tidy');
      await go(
        `go build etcd ${etcdVersion}`,
        [
          'build',
          '-trimpath',
          '-buildvcs=false',
          '-ldflags=-s -w',
          '-o',
          join(binDir, 'etcd'),
          'go.etcd.io/etcd/server/v3',
        ],
        etcdDir,
        'etcd-build',
        true,
      );

      for (const name of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
        await checkVersion(
          join(binDir, name),
          ['--version'],
          `Kubernetes v${kubernetesVersion}`,
          progress,
        );
      }
      await checkVersion(
        join(binDir, 'etcd'),
        ['--version'],
        `etcd Version: ${etcdVersion.replace(/^v/, '')}`,
        progress,
      );
      return { kubernetes: kubernetesVersion, etcd: etcdVersion };
    },
  };
}

/** parseGoDirective returns the `go` line's version of a go.mod (1.24.0 when it has none). */
export function parseGoDirective(goMod: string): string {
  return /^go\s+(\S+)/m.exec(goMod)?.[1] ?? '1.24.0';
}
