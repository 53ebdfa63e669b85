/** The two packages Kubernetes' hack/lib/version.sh stamps with `-X` (both must agree). */
const VERSION_PACKAGES = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'];

/**
 * kubernetesLdflags returns the `-ldflags` value for building Kubernetes commands: `-s -w` and the
 * `-X` version variables upstream sets, so `--version` and `/version` report the real release (a
 * wrong or missing minor would also shift versioned feature-gate defaults). `buildDate` must be
 * RFC 3339 UTC without fractional seconds, e.g. `2026-07-01T10:00:00Z`.
 */
export function kubernetesLdflags(kubernetesVersion: string, buildDate: string): string {
  const match = /^v?(1)\.(\d+)\.(\d+)$/.exec(kubernetesVersion);
  if (!match) throw new Error(`not a Kubernetes release version: ${kubernetesVersion}`);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(buildDate)) {
    throw new Error(`build date must look like 2026-01-02T03:04:05Z, got ${buildDate}`);
  }
  const values: [string, string][] = [
    ['gitVersion', `v${match[1]}.${match[2]}.${match[3]}`],
    ['gitMajor', match[1] as string],
    ['gitMinor', match[2] as string],
    ['gitTreeState', 'clean'],
    ['buildDate', buildDate],
  ];
  const flags = ['-s', '-w'];
  for (const pkg of VERSION_PACKAGES) {
    for (const [key, value] of values) flags.push(`-X ${pkg}.${key}=${value}`);
  }
  return flags.join(' ');
}

/**
 * toBuildDate formats a time as the `buildDate` {@link kubernetesLdflags} expects (seconds
 * precision, UTC).
 */
export function toBuildDate(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
