import { TRANSPORT_VERSION } from '../version.js';

/** Go's names for Node's platforms and architectures, so the shape matches client-go's. */
const GO_OS: Readonly<Record<string, string>> = { win32: 'windows', sunos: 'solaris' };
const GO_ARCH: Readonly<Record<string, string>> = {
  x64: 'amd64',
  ia32: '386',
  ppc: 'ppc',
  mipsel: 'mipsle',
};

/** UserAgentOptions say who is calling: the whole header, or an application name to append. */
export interface UserAgentOptions {
  /** userAgent replaces the default user agent entirely. */
  userAgent?: string | undefined;
  /** appName is appended to the default user agent: `k/0.1.0 (linux/amd64) <appName>`. */
  appName?: string | undefined;
  /** platform and arch default to the running process's (tests pin them). */
  platform?: string | undefined;
  arch?: string | undefined;
}

/**
 * defaultUserAgent builds the user agent in client-go's shape, `k/<version> (<os>/<arch>)`,
 * with Go's names for the OS and architecture (`linux/amd64`), followed by ` <appName>` when
 * one is given. `options.userAgent`, when set, is returned as it is.
 */
export function defaultUserAgent(options: UserAgentOptions = {}): string {
  if (options.userAgent) return options.userAgent;
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const base = `k/${TRANSPORT_VERSION} (${GO_OS[platform] ?? platform}/${GO_ARCH[arch] ?? arch})`;
  return options.appName ? `${base} ${options.appName}` : base;
}
