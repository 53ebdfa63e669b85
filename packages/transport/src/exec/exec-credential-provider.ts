import type { ExecAuth, ResolvedConfig } from '@k/config';
import type {
  CredentialProvider,
  CredentialProviderContext,
  CredentialProviderFactory,
  CredentialRequest,
  Credentials,
} from '../auth/credential-provider.js';
import {
  expectCredentialRequest,
  expectFactoryContext,
  expectOptionalFunction,
} from '../checks/argument-checks.js';
import { ExecPluginError } from '../errors.js';
import { checkExecConfig, checkExecOptions } from './check-exec-arguments.js';
import {
  EXEC_CREDENTIAL_API_VERSIONS,
  EXEC_INFO_ENV_VAR,
  buildExecCredentialRequest,
  execClusterInfo,
} from './build-exec-credential-request.js';
import {
  EXEC_CREDENTIAL_CACHE_DIR_ENV_VAR,
  ExecCredentialFileCache,
  sameCredentials,
} from './exec-credential-file-cache.js';
import { InstallHintLimiter } from './install-hint-limiter.js';
import { isInteractive } from './is-interactive.js';
import { parseExecCredential } from './parse-exec-credential.js';
import { redactSecrets } from './redact-secrets.js';
import { runExecPlugin } from './run-exec-plugin.js';
import { SharedCredentialProviders } from '../auth/shared-credential-providers.js';
import { waitWithSignal } from '../auth/wait-with-signal.js';

/** DEFAULT_EXEC_TIMEOUT_MS is how long a plugin may run by default: 5 minutes (room for a browser login). */
export const DEFAULT_EXEC_TIMEOUT_MS = 5 * 60 * 1000;
/** DEFAULT_EXEC_EXPIRY_LEEWAY_MS is how long before its expiry a credential is renewed: 10 s. */
export const DEFAULT_EXEC_EXPIRY_LEEWAY_MS = 10_000;

const MAX_KNOWN_SECRETS = 32;

/** ExecCredentialProviderOptions tune exec plugin runs; every field is optional. */
export interface ExecCredentialProviderOptions {
  /**
   * timeoutMs bounds one plugin run (default {@link DEFAULT_EXEC_TIMEOUT_MS}); when it passes the
   * plugin's process tree is killed and `ERR_TRANSPORT_EXEC_TIMEOUT` thrown. 0 waits forever, as client-go,
   * and so does `Infinity` or anything longer than a Node timer holds (2^31-1 ms, ~24.8 days).
   */
  timeoutMs?: number | undefined;
  /**
   * expiryLeewayMs renews a credential this long before its `expirationTimestamp` (default
   * {@link DEFAULT_EXEC_EXPIRY_LEEWAY_MS}), so a token does not expire while a request is in
   * flight. client-go has none (0 restores its `now > expiry` rule).
   */
  expiryLeewayMs?: number | undefined;
  /**
   * cacheDirectory turns on the cross-process credential cache in that directory (see
   * {@link ExecCredentialFileCache}). Default: `$K_EXEC_CREDENTIAL_CACHE_DIR`, else off; `null`
   * turns it off even when the variable is set.
   */
  cacheDirectory?: string | null | undefined;
  /** stderr receives plugins' stderr (default `process.stderr`; null keeps it captured only). */
  stderr?: NodeJS.WritableStream | null | undefined;
  /** isTerminal reports whether standard input is a terminal (default `process.stdin.isTTY`). */
  isTerminal?: (() => boolean) | undefined;
  /** stdinUnavailable says the program uses standard input itself (client-go's StdinUnavailable). */
  stdinUnavailable?: boolean | string | undefined;
  /** environment is the parent environment plugins inherit (default `process.env`, read per run). */
  environment?: NodeJS.ProcessEnv | undefined;
}

/**
 * ExecCredentialProvider runs a client-go credential plugin (`users[].user.exec`) and hands out
 * what it returns: `Authorization: Bearer <token>`, a client certificate, or both.
 *
 * Contract: the plugin runs on the first `getCredentials` and again only when the credential
 * expires (`expirationTimestamp` minus the leeway; without one it is kept until a 401) or after
 * `invalidate`; concurrent callers share one run (single flight) and one result. An aborted
 * `request.signal` rejects that caller only; the run goes on for the others. The request is
 * client-go's ExecCredential in `KUBERNETES_EXEC_INFO` (cluster info only with
 * `provideClusterInfo`); the environment is ours, then `exec.env` in order, then
 * `KUBERNETES_EXEC_INFO`. As in client-go, when the user also has a client certificate and key
 * the plugin is never run and the credentials are empty. With a cache directory, credentials
 * that have an expiry are also shared with other processes through files. Errors are
 * `ExecPluginError`s and never hold the credential. `close()` kills a running plugin.
 */
export class ExecCredentialProvider implements CredentialProvider {
  readonly kind = 'exec';
  readonly #auth: ExecAuth;
  readonly #config: ResolvedConfig;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #leewayMs: number;
  readonly #stderr: NodeJS.WritableStream | null;
  readonly #isTerminal: () => boolean;
  readonly #stdinUnavailable: boolean | string | undefined;
  readonly #environment: NodeJS.ProcessEnv | undefined;
  readonly #fileCache: ExecCredentialFileCache | undefined;
  readonly #hints: InstallHintLimiter;
  readonly #skip: boolean;
  readonly #closing = new AbortController();
  readonly #knownSecrets: string[] = [];
  #current: Credentials | undefined;
  #inflight: Promise<Credentials> | undefined;
  #runs = 0;

  /**
   * Throws `ERR_TRANSPORT_EXEC_INVALID_API_VERSION` (`exec plugin: invalid apiVersion "<v>"`) for anything
   * but `client.authentication.k8s.io/v1` and `…/v1beta1`, as client-go does when it builds the
   * transport, and a `TransportError` `ERR_TRANSPORT_INVALID_ARGUMENT` for arguments of the
   * wrong shape (a user that is not an exec user, options of the wrong type).
   */
  constructor(
    config: ResolvedConfig,
    options: ExecCredentialProviderOptions = {},
    now: () => number = Date.now,
  ) {
    const where = 'ExecCredentialProvider';
    checkExecConfig(config, where, 'config');
    checkExecOptions(options, where);
    expectOptionalFunction(now, where, 'now');
    const auth = config.auth as ExecAuth;
    if (!EXEC_CREDENTIAL_API_VERSIONS.includes(auth.exec.apiVersion)) {
      throw new ExecPluginError(
        'ERR_TRANSPORT_EXEC_INVALID_API_VERSION',
        `exec plugin: invalid apiVersion ${JSON.stringify(auth.exec.apiVersion)}`,
        { command: auth.exec.command },
      );
    }
    this.#auth = auth;
    this.#config = config;
    this.#now = now;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    this.#leewayMs = options.expiryLeewayMs ?? DEFAULT_EXEC_EXPIRY_LEEWAY_MS;
    this.#stderr = options.stderr === undefined ? process.stderr : options.stderr;
    this.#isTerminal = options.isTerminal ?? (() => process.stdin.isTTY === true);
    this.#stdinUnavailable = options.stdinUnavailable;
    this.#environment = options.environment;
    const directory =
      options.cacheDirectory === undefined
        ? (options.environment ?? process.env)[EXEC_CREDENTIAL_CACHE_DIR_ENV_VAR] || undefined
        : (options.cacheDirectory ?? undefined);
    this.#fileCache = directory ? new ExecCredentialFileCache(directory) : undefined;
    this.#hints = new InstallHintLimiter(now);
    const tls = config.tls;
    this.#skip = Boolean(
      (tls.certData?.length || tls.certFile) && (tls.keyData?.length || tls.keyFile),
    );
    for (const variable of auth.exec.env ?? []) this.#remember(variable.value);
  }

  /** command is the plugin as configured. */
  get command(): string {
    return this.#auth.exec.command;
  }

  /** runs counts the plugin runs started by this provider (cache hits are not runs). */
  get runs(): number {
    return this.#runs;
  }

  async getCredentials(request: CredentialRequest = {}): Promise<Credentials> {
    expectCredentialRequest(request, 'ExecCredentialProvider.getCredentials');
    if (this.#closing.signal.aborted) throw this.#closedError();
    if (this.#skip) return {};
    const current = this.#current;
    if (current && this.#isFresh(current)) return current;
    this.#inflight ??= this.#refresh().finally(() => {
      this.#inflight = undefined;
    });
    return waitWithSignal(this.#inflight, request.signal);
  }

  /**
   * invalidate drops `rejected` if it is still the current credential (and its cache file), so
   * the next `getCredentials` re-runs the plugin; returns true (a fresh run may succeed).
   */
  async invalidate(rejected: Credentials): Promise<boolean> {
    if (this.#skip || this.#closing.signal.aborted) return false;
    const current = this.#current;
    if (current && sameCredentials(current, rejected)) {
      this.#current = undefined;
      if (this.#fileCache) await this.#fileCache.delete(await this.#cacheKey(), rejected);
    }
    return true;
  }

  /** close kills a running plugin and makes later calls fail with `ERR_TRANSPORT_EXEC_CLOSED`. */
  close(): void {
    this.#closing.abort();
    this.#current = undefined;
  }

  #isFresh(credentials: Credentials): boolean {
    const expiresAt = credentials.expiresAt;
    return expiresAt === undefined || this.#now() + this.#leewayMs <= expiresAt.getTime();
  }

  async #refresh(): Promise<Credentials> {
    const exec = this.#auth.exec;
    const command = exec.command;
    const cluster = exec.provideClusterInfo
      ? await execClusterInfo(this.#config, this.#auth.clusterExtension, command)
      : undefined;
    let cacheKey: string | undefined;
    if (this.#fileCache) {
      cacheKey = this.#cacheKeyFor(cluster);
      const cached = await this.#fileCache.read(cacheKey);
      if (cached && this.#isFresh(cached)) {
        this.#rememberCredentials(cached);
        this.#current = cached;
        return cached;
      }
    }
    const interactive = isInteractive(
      exec.interactiveMode,
      { isTerminal: this.#isTerminal(), stdinUnavailable: this.#stdinUnavailable },
      command,
    );
    const execInfo = JSON.stringify(
      buildExecCredentialRequest(exec.apiVersion, interactive, cluster),
    );
    const parent = this.#environment ?? process.env;
    const env: NodeJS.ProcessEnv = { ...parent };
    for (const variable of exec.env ?? []) env[variable.name] = variable.value;
    env[EXEC_INFO_ENV_VAR] = execInfo;
    this.#runs++;
    const run = await runExecPlugin({
      command,
      args: exec.args ?? [],
      env,
      searchPath: parent.PATH ?? '',
      interactive,
      timeoutMs: this.#timeoutMs,
      stderr: this.#stderr,
      redact: (stderr, stdout) => this.#redact(stderr, stdout),
      notFoundMessage: (detail) => this.#hints.notFoundMessage(command, exec.installHint, detail),
      signal: this.#closing.signal,
    });
    const parsed = parseExecCredential(run.stdout, exec.apiVersion, command);
    for (const secret of parsed.secrets) this.#remember(secret);
    if (this.#closing.signal.aborted) throw this.#closedError();
    this.#current = parsed.credentials;
    if (this.#fileCache && cacheKey) await this.#fileCache.write(cacheKey, parsed.credentials);
    return parsed.credentials;
  }

  async #cacheKey(): Promise<string> {
    const exec = this.#auth.exec;
    const cluster = exec.provideClusterInfo
      ? await execClusterInfo(this.#config, this.#auth.clusterExtension, exec.command).catch(
          () => undefined,
        )
      : undefined;
    return this.#cacheKeyFor(cluster);
  }

  #cacheKeyFor(cluster: unknown): string {
    const exec = this.#auth.exec;
    return ExecCredentialFileCache.keyFor({
      format: 1,
      exec: {
        command: exec.command,
        args: exec.args ?? [],
        env: exec.env ?? [],
        apiVersion: exec.apiVersion,
        interactiveMode: exec.interactiveMode ?? '',
        provideClusterInfo: exec.provideClusterInfo,
      },
      server: this.#config.server,
      cluster: cluster ?? null,
    });
  }

  #remember(secret: string | undefined): void {
    if (!secret || this.#knownSecrets.includes(secret)) return;
    this.#knownSecrets.push(secret);
    if (this.#knownSecrets.length > MAX_KNOWN_SECRETS) this.#knownSecrets.shift();
  }

  #rememberCredentials(credentials: Credentials): void {
    if (credentials.authorization)
      this.#remember(credentials.authorization.replace(/^Bearer /, ''));
    if (credentials.clientCertificate) this.#remember(credentials.clientCertificate.key);
  }

  /** #redact hides known secrets, whatever a failed run printed on stdout, and token-like text. */
  #redact(stderr: string, stdout: string): string {
    const secrets = [...this.#knownSecrets, ...secretsIn(stdout)];
    return redactSecrets(stderr, secrets);
  }

  #closedError(): ExecPluginError {
    return new ExecPluginError(
      'ERR_TRANSPORT_EXEC_CLOSED',
      `exec: credential provider for ${this.command} was closed`,
      { command: this.command },
    );
  }
}

/**
 * createExecCredentialProviderFactory returns the `exec` factory. Providers it creates for the
 * same exec config and cluster (and the same clock) are shared, as client-go shares exec
 * authenticators process-wide: one credential cache and one plugin run for every transport of
 * that user; the shared provider is closed with its last handle. `create` throws
 * `ERR_TRANSPORT_EXEC_INVALID_API_VERSION` for an unsupported `apiVersion`.
 */
export function createExecCredentialProviderFactory(
  options: ExecCredentialProviderOptions = {},
): CredentialProviderFactory {
  checkExecOptions(options, 'createExecCredentialProviderFactory');
  const shared = new SharedCredentialProviders();
  return {
    kind: 'exec',
    create(context: CredentialProviderContext): CredentialProvider {
      const where = 'execCredentialProviderFactory.create';
      expectFactoryContext(context, where);
      checkExecConfig(context.config, where, 'context.config');
      const config = context.config;
      const command = (config.auth as ExecAuth).exec.command;
      return shared.acquire({
        now: context.now,
        key: sharingKey(config),
        create: () => new ExecCredentialProvider(config, options, context.now),
        closedError: () =>
          new ExecPluginError(
            'ERR_TRANSPORT_EXEC_CLOSED',
            `exec: credential provider for ${command} was closed`,
            { command },
          ),
      });
    },
  };
}

/** execCredentialProviderFactory is the default `exec` factory (process-wide sharing, default options). */
export const execCredentialProviderFactory: CredentialProviderFactory =
  createExecCredentialProviderFactory();

function sharingKey(config: ResolvedConfig): string {
  const auth = config.auth as ExecAuth;
  const tls = config.tls;
  return JSON.stringify({
    exec: auth.exec,
    extension: auth.clusterExtension ?? null,
    server: config.server,
    caData: tls.caData ? Buffer.from(tls.caData).toString('base64') : null,
    caFile: tls.caFile ?? null,
    serverName: tls.serverName ?? null,
    insecure: tls.insecure,
    clientCertificate: Boolean(
      (tls.certData?.length || tls.certFile) && (tls.keyData?.length || tls.keyFile),
    ),
    proxyUrl: config.proxyUrl ?? null,
    disableCompression: config.disableCompression,
  });
}

/** secretsIn extracts the token and key of a (possibly invalid) ExecCredential printed by a failed run. */
function secretsIn(stdout: string): string[] {
  if (!stdout.trim()) return [];
  try {
    const document = JSON.parse(stdout) as { status?: Record<string, unknown> } | null;
    const status = document?.status;
    if (typeof status !== 'object' || status === null) return [];
    return [status.token, status.clientKeyData].filter(
      (value): value is string => typeof value === 'string',
    );
  } catch {
    return [];
  }
}
