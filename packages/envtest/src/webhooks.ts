import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isNotFound, parseManifests, type Clientset, type ObjectMeta } from '@k/clientset';
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from '@k/clientset/admissionregistration/v1';
import { freePort, WebhookPki } from '@k/testenv';
import { EnvtestError, toEnvtestError } from './errors.js';
import type { EnvironmentContext } from './internal/context.js';
import type {
  InstalledWebhooks,
  InstallWebhooksOptions,
  TestUser,
  WebhookServing,
  WebhookServingOptions,
} from './types.js';
import { rewriteWebhookConfiguration, webhookUrl } from './webhook-rewrite.js';

/** FIELD_MANAGER owns what installWebhooks applies. */
const FIELD_MANAGER = 'k-envtest';
const ADMISSION_API_VERSION = 'admissionregistration.k8s.io/v1';
const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
/** How long installWebhooks waits for each configuration to read back. */
const READ_BACK_TIMEOUT_MS = 10_000;

/**
 * LocalWebhookServing is a {@link WebhookServing}: a {@link WebhookPki} in a directory of its own
 * and the loopback port the webhook server is meant to bind. `close()` removes the directory and
 * is idempotent.
 */
class LocalWebhookServing implements WebhookServing {
  readonly host = '127.0.0.1' as const;
  readonly port: number;
  readonly caPem: string;
  readonly caBundle: string;
  readonly certPath: string;
  readonly keyPath: string;
  readonly #pki: WebhookPki;
  readonly #removeDirectory: () => Promise<void>;
  #closed: Promise<void> | undefined;

  constructor(pki: WebhookPki, port: number, removeDirectory: () => Promise<void>) {
    this.#pki = pki;
    this.port = port;
    this.caPem = pki.caPem;
    this.caBundle = Buffer.from(pki.caPem, 'utf8').toString('base64');
    this.certPath = pki.certPath;
    this.keyPath = pki.keyPath;
    this.#removeDirectory = removeDirectory;
  }

  get certPem(): string {
    return this.#pki.certPem;
  }

  get keyPem(): string {
    return this.#pki.keyPem;
  }

  url(urlPath: string, port?: number): string {
    return webhookUrl(port ?? this.port, urlPath);
  }

  async rotate(): Promise<void> {
    if (this.#closed)
      throw new EnvtestError(
        'ERR_ENVTEST_INVALID_OPTIONS',
        'rotate() after close(): the serving is closed',
      );
    try {
      await this.#pki.rotate();
    } catch (error) {
      throw toEnvtestError(error);
    }
  }

  close(): Promise<void> {
    return (this.#closed ??= this.#removeDirectory());
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * createWebhookServing makes a serving certificate for a webhook server on 127.0.0.1, signed by a
 * new CA of its own, in `<tmpdir>/k-envtest-webhook-XXXXXX` (mode 0700). It needs no control
 * plane, so its `caBundle` can go into `crds.conversion` of `startEnvironment`. The caller closes
 * it (that removes the directory). Throws ERR_ENVTEST_INVALID_OPTIONS for a bad port or host and
 * ERR_ENVTEST_PKI_FAILED when openssl fails or is missing.
 */
export async function createWebhookServing(
  options: WebhookServingOptions = {},
): Promise<WebhookServing> {
  const port = await servingPort(options.port);
  const directory = await mkdtemp(path.join(tmpdir(), 'k-envtest-webhook-'));
  return makeServing(directory, port, options, () =>
    rm(directory, { recursive: true, force: true }),
  );
}

/**
 * createEnvironmentWebhookServing is an environment's `webhookServing()`: as
 * {@link createWebhookServing}, with the files under the plane's run directory
 * (`<runDir>/envtest-webhooks/`), so the plane's watchdog removes them even after a SIGKILL,
 * and closed by the handle's `close()`.
 */
export async function createEnvironmentWebhookServing(
  context: EnvironmentContext,
  options: WebhookServingOptions = {},
): Promise<WebhookServing> {
  const port = await servingPort(options.port);
  const parent = path.join(context.runDir, 'envtest-webhooks');
  try {
    await mkdir(parent, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new EnvtestError(
      'ERR_ENVTEST_NOT_RUNNING',
      `cannot write under the plane's run directory ${context.runDir}`,
      { cause: error },
    );
  }
  const directory = await mkdtemp(path.join(parent, 'serving-'));
  const serving = await makeServing(directory, port, options, () =>
    rm(directory, { recursive: true, force: true }),
  );
  context.closeables.push({
    what: `the webhook serving in ${directory}`,
    close: () => serving.close(),
  });
  return serving;
}

async function makeServing(
  directory: string,
  port: number,
  options: WebhookServingOptions,
  removeDirectory: () => Promise<void>,
): Promise<WebhookServing> {
  try {
    const pki = await WebhookPki.create(directory, { hosts: options.hosts });
    return new LocalWebhookServing(pki, port, removeDirectory);
  } catch (error) {
    await removeDirectory();
    throw toEnvtestError(error);
  }
}

async function servingPort(port: number | undefined): Promise<number> {
  if (port === undefined) return freePort();
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new EnvtestError(
      'ERR_ENVTEST_INVALID_OPTIONS',
      `webhook port ${String(port)} is not a TCP port (1–65535)`,
    );
  return port;
}

type WebhookConfiguration =
  | {
      readonly kind: 'ValidatingWebhookConfiguration';
      readonly object: ValidatingWebhookConfiguration;
    }
  | {
      readonly kind: 'MutatingWebhookConfiguration';
      readonly object: MutatingWebhookConfiguration;
    };

/**
 * installWebhooks is an environment's `installWebhooks()`: it takes the given configurations and
 * those in `paths` (files, or directories read non-recursively: *.yaml, *.yml, *.json; other kinds
 * skipped), points every webhook at the local server ({@link rewriteWebhookConfiguration}), applies
 * them as `admin` by server-side apply (field manager `k-envtest`, forced, so a reinstall on a shared
 * plane is idempotent) and waits until each reads back. The handle's `close()` uninstalls them.
 * kube-apiserver picks new configurations up from an informer, so the first admission call may come a
 * moment later: `eventually` it. Throws ERR_ENVTEST_INVALID_OPTIONS (no configuration, a nameless one,
 * a missing path) and ERR_ENVTEST_PROVISION_FAILED (the server refused one; the ApiError is the cause).
 */
export async function installWebhooks(
  context: EnvironmentContext,
  admin: TestUser,
  options: InstallWebhooksOptions,
): Promise<InstalledWebhooks> {
  const configurations: WebhookConfiguration[] = [
    ...(options.validating ?? []).map((object) => ({
      kind: 'ValidatingWebhookConfiguration' as const,
      object,
    })),
    ...(options.mutating ?? []).map((object) => ({
      kind: 'MutatingWebhookConfiguration' as const,
      object,
    })),
    ...(await readWebhookManifests(options.paths ?? [])),
  ];
  if (configurations.length === 0)
    throw new EnvtestError(
      'ERR_ENVTEST_INVALID_OPTIONS',
      'installWebhooks needs validating, mutating or paths with at least one webhook configuration',
    );
  for (const { kind, object } of configurations) {
    if (typeof object.metadata?.name !== 'string' || object.metadata.name === '')
      throw new EnvtestError('ERR_ENVTEST_INVALID_OPTIONS', `a ${kind} has no metadata.name`);
  }
  const clientset = await admin.clientset();
  const installed: WebhookConfiguration[] = [];
  const uninstall = async () => {
    for (const { kind, object } of installed.splice(0).reverse()) {
      try {
        await clientFor(clientset, kind).delete(object.metadata!.name!);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  };
  context.closeables.push({ what: 'installed webhook configurations', close: uninstall });
  for (const configuration of configurations) {
    try {
      await applyConfiguration(clientset, configuration, options.serving, options.port);
    } catch (error) {
      throw new EnvtestError(
        'ERR_ENVTEST_PROVISION_FAILED',
        `applying ${configuration.kind} ${configuration.object.metadata!.name!} failed: ${(error as Error).message}`,
        { cause: error, step: 'install webhooks' },
      );
    }
    installed.push(configuration);
  }
  // As controller-runtime's WaitForWebhooks: every configuration reads back before this resolves.
  const deadline = Date.now() + READ_BACK_TIMEOUT_MS;
  for (const { kind, object } of installed) {
    for (;;) {
      try {
        await clientFor(clientset, kind).get(object.metadata!.name!);
        break;
      } catch (error) {
        if (!isNotFound(error) || Date.now() > deadline)
          throw new EnvtestError(
            'ERR_ENVTEST_PROVISION_FAILED',
            `${kind} ${object.metadata!.name} did not read back`,
            { cause: error, step: 'install webhooks' },
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
  return { names: installed.map(({ object }) => object.metadata!.name!), uninstall };
}

/** applyConfiguration points one configuration at the local server and applies it. */
async function applyConfiguration(
  clientset: Clientset,
  configuration: WebhookConfiguration,
  serving: WebhookServing,
  port: number | undefined,
): Promise<void> {
  const options = { fieldManager: FIELD_MANAGER, force: true };
  if (configuration.kind === 'ValidatingWebhookConfiguration') {
    const object = rewriteWebhookConfiguration(configuration.object, serving, { port });
    await clientset.admissionregistrationV1.validatingWebhookConfigurations().apply(
      {
        ...object,
        apiVersion: ADMISSION_API_VERSION,
        kind: configuration.kind,
        metadata: applicable(object.metadata),
      },
      options,
    );
  } else {
    const object = rewriteWebhookConfiguration(configuration.object, serving, { port });
    await clientset.admissionregistrationV1.mutatingWebhookConfigurations().apply(
      {
        ...object,
        apiVersion: ADMISSION_API_VERSION,
        kind: configuration.kind,
        metadata: applicable(object.metadata),
      },
      options,
    );
  }
}

/**
 * applicable is metadata fit for server-side apply: without what the server owns (a manifest
 * read back from a cluster carries resourceVersion, uid and managedFields).
 */
function applicable(
  metadata: ObjectMeta | undefined,
): Omit<ObjectMeta, 'managedFields'> & { name: string } {
  const copy = { ...metadata, name: metadata?.name ?? '' };
  delete copy.resourceVersion;
  delete copy.uid;
  delete copy.managedFields;
  delete copy.creationTimestamp;
  return copy;
}

function clientFor(clientset: Clientset, kind: WebhookConfiguration['kind']) {
  return kind === 'ValidatingWebhookConfiguration'
    ? clientset.admissionregistrationV1.validatingWebhookConfigurations()
    : clientset.admissionregistrationV1.mutatingWebhookConfigurations();
}

/** readWebhookManifests reads the webhook configurations of files and directories (non-recursive). */
async function readWebhookManifests(paths: readonly string[]): Promise<WebhookConfiguration[]> {
  const files: string[] = [];
  for (const entry of paths) {
    const info = await stat(entry).catch((error: unknown) => {
      throw new EnvtestError(
        'ERR_ENVTEST_INVALID_OPTIONS',
        `webhook manifest path ${entry} does not exist`,
        { cause: error },
      );
    });
    if (!info.isDirectory()) files.push(entry);
    else
      files.push(
        ...(await readdir(entry))
          .filter((name) => MANIFEST_EXTENSIONS.has(path.extname(name)))
          .sort()
          .map((name) => path.join(entry, name)),
      );
  }
  const configurations: WebhookConfiguration[] = [];
  for (const file of files) {
    let objects: Awaited<ReturnType<typeof parseManifests>>;
    try {
      objects = await parseManifests(await readFile(file, 'utf8'));
    } catch (error) {
      throw new EnvtestError(
        'ERR_ENVTEST_INVALID_OPTIONS',
        `webhook manifest ${file} cannot be read: ${(error as Error).message}`,
        { cause: error },
      );
    }
    for (const object of objects) {
      if (object.apiVersion !== ADMISSION_API_VERSION) continue;
      if (
        object.kind === 'ValidatingWebhookConfiguration' ||
        object.kind === 'MutatingWebhookConfiguration'
      )
        configurations.push({ kind: object.kind, object: object as never });
    }
  }
  return configurations;
}
