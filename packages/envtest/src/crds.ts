import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Clientset } from '@k/clientset';
import type { CustomResourceDefinition } from '@k/clientset/apiextensions/v1';
import { ApiError } from '@k/rest/errors';
import { DEFAULT_FIELD_MANAGER } from './apply.js';
import { EnvtestError } from './errors.js';
import type { EnvironmentContext } from './internal/context.js';
import type { CrdSource, InstalledCrds, TestUser } from './types.js';
import { rewriteCrdConversion } from './webhook-rewrite.js';

/** DEFAULT_CRD_TIMEOUT_MS is how long a CRD may take to be Established and served. */
const DEFAULT_CRD_TIMEOUT_MS = 30_000;

/** CRD_EXTENSIONS are the files a directory contributes, as controller-runtime's readCRDs reads. */
const CRD_EXTENSIONS: ReadonlySet<string> = new Set(['.yaml', '.yml', '.json']);

/** MAX_CRD_FILE_BYTES bounds one file: the API server refuses a request body past 3 MiB anyway. */
const MAX_CRD_FILE_BYTES = 16 * 1024 * 1024;

const SOURCE_KEYS: ReadonlySet<string> = new Set([
  'paths',
  'objects',
  'errorIfPathMissing',
  'timeoutMs',
  'conversion',
]);

/** FoundCrd is one CustomResourceDefinition and where it came from, for messages. */
export interface FoundCrd {
  readonly crd: CustomResourceDefinition;
  /** origin: `<file> document <n>` or `objects[<i>]`. */
  readonly origin: string;
}

function invalidOptions(message: string): EnvtestError {
  return new EnvtestError('ERR_ENVTEST_INVALID_OPTIONS', `crds: ${message}`, {
    step: 'install crds',
  });
}

function crdInvalid(origin: string, reason: string, cause?: unknown): EnvtestError {
  return new EnvtestError(
    'ERR_ENVTEST_CRD_INVALID',
    `${origin} is not a valid CustomResourceDefinition: ${reason}`,
    { step: 'install crds', ...(cause !== undefined ? { cause } : {}) },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** checkCrdSource refuses a malformed {@link CrdSource} (`ERR_ENVTEST_INVALID_OPTIONS`). */
export function checkCrdSource(source: unknown): asserts source is CrdSource {
  if (!isObject(source)) throw invalidOptions('the source must be an object');
  for (const key of Object.keys(source)) {
    if (!SOURCE_KEYS.has(key)) {
      throw invalidOptions(
        `unknown option ${JSON.stringify(key.slice(0, 60))}; the options are ${[...SOURCE_KEYS].join(', ')}`,
      );
    }
  }
  const { paths, objects, errorIfPathMissing, timeoutMs, conversion } = source;
  if (
    paths !== undefined &&
    (!Array.isArray(paths) || !paths.every((item) => typeof item === 'string' && item !== ''))
  ) {
    throw invalidOptions('paths must be an array of file or directory paths');
  }
  if (objects !== undefined && (!Array.isArray(objects) || !objects.every(isObject))) {
    throw invalidOptions('objects must be an array of CustomResourceDefinition objects');
  }
  if (errorIfPathMissing !== undefined && typeof errorIfPathMissing !== 'boolean') {
    throw invalidOptions('errorIfPathMissing must be true or false');
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
  ) {
    throw invalidOptions('timeoutMs must be a number of milliseconds above 0');
  }
  if (conversion !== undefined) {
    if (!isObject(conversion) || !isObject(conversion.serving)) {
      throw invalidOptions('conversion must be { serving, path?, port?, all? }');
    }
    const serving = conversion.serving;
    if (typeof serving.port !== 'number' || typeof serving.caBundle !== 'string') {
      throw invalidOptions('conversion.serving must be a WebhookServing (port and caBundle)');
    }
    if (conversion.path !== undefined && typeof conversion.path !== 'string') {
      throw invalidOptions('conversion.path must be a string');
    }
    if (
      conversion.port !== undefined &&
      (!Number.isInteger(conversion.port) ||
        (conversion.port as number) < 1 ||
        (conversion.port as number) > 65_535)
    ) {
      throw invalidOptions('conversion.port must be a port number');
    }
    if (conversion.all !== undefined && typeof conversion.all !== 'boolean') {
      throw invalidOptions('conversion.all must be true or false');
    }
  }
}

/**
 * checkCrd refuses a document that is a CRD but cannot be one: apiextensions.k8s.io/v1 only (v1beta1
 * is gone since Kubernetes 1.22), a name that is `<plural>.<group>`, names and at least one version.
 */
function checkCrd(object: Record<string, unknown>, origin: string): CustomResourceDefinition {
  if (object.apiVersion !== 'apiextensions.k8s.io/v1') {
    throw crdInvalid(
      origin,
      `apiVersion must be apiextensions.k8s.io/v1 (got ${JSON.stringify(String(object.apiVersion).slice(0, 60))})`,
    );
  }
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const spec = isObject(object.spec) ? object.spec : undefined;
  const names = spec && isObject(spec.names) ? spec.names : undefined;
  if (typeof metadata.name !== 'string' || metadata.name === '') {
    throw crdInvalid(origin, 'metadata.name is missing');
  }
  if (!spec || typeof spec.group !== 'string' || spec.group === '') {
    throw crdInvalid(origin, 'spec.group is missing');
  }
  if (!names || typeof names.plural !== 'string' || typeof names.kind !== 'string') {
    throw crdInvalid(origin, 'spec.names.plural and spec.names.kind are required');
  }
  if (metadata.name !== `${names.plural}.${spec.group}`) {
    throw crdInvalid(
      origin,
      `metadata.name must be spec.names.plural + "." + spec.group (${names.plural}.${spec.group}), got ${metadata.name}`,
    );
  }
  if (!Array.isArray(spec.versions) || spec.versions.length === 0) {
    throw crdInvalid(origin, 'spec.versions must list at least one version');
  }
  return object as unknown as CustomResourceDefinition;
}

/** isCrd reports whether a document says it is a CustomResourceDefinition (of any version). */
function isCrd(value: unknown): value is Record<string, unknown> {
  return (
    isObject(value) &&
    value.kind === 'CustomResourceDefinition' &&
    typeof value.apiVersion === 'string' &&
    value.apiVersion.startsWith('apiextensions.k8s.io/')
  );
}

/** crdsOfText reads the CRDs of one file's documents; other documents are skipped. */
export async function crdsOfText(text: string, file: string): Promise<FoundCrd[]> {
  const yaml = await import('@k/config/yaml-guards');
  const lineCounter = new yaml.LineCounter();
  const parsed = yaml.parseAllDocuments(text, {
    version: '1.1',
    uniqueKeys: false,
    prettyErrors: false,
    lineCounter,
  });
  const documents = Array.isArray(parsed) ? parsed : [parsed];
  const found: FoundCrd[] = [];
  for (const [index, document] of documents.entries()) {
    const origin = `${file} document ${index + 1}`;
    const [error] = document.errors;
    if (error)
      throw crdInvalid(origin, `not valid yaml: ${yaml.safeYamlMessage(error, lineCounter)}`);
    if (yaml.aliasesRepeatTooMuch(document, yaml.MAX_ALIASED_NODES)) {
      throw crdInvalid(origin, `yaml aliases repeat more than ${yaml.MAX_ALIASED_NODES} nodes`);
    }
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: yaml.MAX_ALIASED_NODES });
    } catch (caught) {
      throw crdInvalid(origin, `not valid yaml: ${yaml.safeYamlMessage(caught, lineCounter)}`);
    }
    const items =
      isObject(value) && value.kind === 'List' && Array.isArray(value.items)
        ? value.items
        : [value];
    for (const item of items) {
      if (isCrd(item)) found.push({ crd: checkCrd(item, origin), origin });
    }
  }
  return found;
}

/** filesOf lists the files a path contributes: itself, or a directory's CRD files (not recursive). */
async function filesOf(entry: string, errorIfPathMissing: boolean): Promise<string[]> {
  let info;
  try {
    info = await stat(entry);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (!errorIfPathMissing) return [];
    throw new EnvtestError(
      'ERR_ENVTEST_CRD_PATH_MISSING',
      `the CRD path ${entry} does not exist (set errorIfPathMissing: false to skip missing paths)`,
      { step: 'install crds', cause: error },
    );
  }
  if (!info.isDirectory()) return [entry];
  const names = await readdir(entry, { withFileTypes: true });
  return names
    .filter((name) => name.isFile() && CRD_EXTENSIONS.has(path.extname(name.name).toLowerCase()))
    .map((name) => path.join(entry, name.name))
    .sort();
}

/**
 * readCrds gathers the CRDs of a source: every file of `paths` (directories read non-recursively:
 * `*.yaml`, `*.yml`, `*.json`; documents that are not CRDs skipped), then `objects`. A missing path
 * is `ERR_ENVTEST_CRD_PATH_MISSING` unless `errorIfPathMissing: false`; a CRD document that cannot
 * be valid is `ERR_ENVTEST_CRD_INVALID`, naming the file and the document (from 1).
 */
export async function readCrds(source: CrdSource): Promise<FoundCrd[]> {
  checkCrdSource(source);
  const found: FoundCrd[] = [];
  for (const entry of source.paths ?? []) {
    for (const file of await filesOf(entry, source.errorIfPathMissing ?? true)) {
      const info = await stat(file);
      if (info.size > MAX_CRD_FILE_BYTES) {
        throw crdInvalid(file, `the file is larger than ${MAX_CRD_FILE_BYTES / 1024 / 1024} MiB`);
      }
      found.push(...(await crdsOfText(await readFile(file, 'utf8'), file)));
    }
  }
  for (const [index, object] of (source.objects ?? []).entries()) {
    const origin = `objects[${index}]`;
    if (!isCrd(object)) throw crdInvalid(origin, 'kind must be CustomResourceDefinition');
    found.push({ crd: checkCrd(object, origin), origin });
  }
  const conversion = source.conversion;
  if (conversion === undefined) return found;
  return found.map(({ crd, origin }) => ({
    crd: rewriteCrdConversion(crd, conversion.serving, {
      path: conversion.path,
      all: conversion.all,
      port: conversion.port,
    }),
    origin,
  }));
}

/** applyCrd server-side applies one CRD and waits until it is Established and served. */
async function applyCrd(clientset: Clientset, found: FoundCrd, timeoutMs: number): Promise<void> {
  try {
    await clientset.applyManifests(JSON.stringify(found.crd), {
      fieldManager: DEFAULT_FIELD_MANAGER,
      force: true,
      waitForEstablished: { timeoutMs },
    });
  } catch (error) {
    if (ApiError.isInstance(error) && (error.statusCode === 422 || error.statusCode === 400)) {
      throw crdInvalid(found.origin, error.message, error);
    }
    const name = found.crd.metadata?.name ?? found.origin;
    throw new EnvtestError(
      'ERR_ENVTEST_PROVISION_FAILED',
      `installing the CustomResourceDefinition ${name} (${found.origin}) failed: ${error instanceof Error ? error.message : String(error)}`,
      { step: 'install crds', cause: error },
    );
  }
}

/** waitUntilGone polls until the CRD reads 404, up to `timeoutMs`. */
async function waitUntilGone(clientset: Clientset, name: string, timeoutMs: number): Promise<void> {
  const client = clientset.apiextensionsV1.customResourceDefinitions();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.get(name);
    } catch (error) {
      if (ApiError.isInstance(error) && error.statusCode === 404) return;
      throw error;
    }
    if (Date.now() >= deadline) {
      throw new EnvtestError(
        'ERR_ENVTEST_PROVISION_FAILED',
        `the CustomResourceDefinition ${name} still exists ${timeoutMs} ms after its deletion (its custom resources may hold finalizers)`,
        { step: 'uninstall crds' },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * installCrds is an environment's `installCrds()`: it reads the source ({@link readCrds}), points
 * the conversion of webhook-converted CRDs at `conversion.serving` when asked, server-side applies
 * every CRD as `admin` (field manager `k-envtest`, forced, so a reinstall on a shared plane is
 * idempotent) side by side, and resolves once each is Established and listed in discovery for
 * every served version (`timeoutMs`, default 30 000). A server that refuses a CRD as invalid is
 * `ERR_ENVTEST_CRD_INVALID` naming where it came from; other failures are
 * `ERR_ENVTEST_PROVISION_FAILED`, with the clientset's error as `cause`. `uninstall()` deletes them
 * and waits until they are gone. The CRDs stay when the handle closes (other files of a shared plane
 * may use them).
 */
export async function installCrds(
  _context: EnvironmentContext,
  admin: TestUser,
  source: CrdSource,
): Promise<InstalledCrds> {
  return applyCrds(admin, await readCrds(source), source.timeoutMs);
}

/** applyCrds is the second half of {@link installCrds}: it applies CRDs already read and checked. */
export async function applyCrds(
  admin: TestUser,
  found: readonly FoundCrd[],
  timeoutMs = DEFAULT_CRD_TIMEOUT_MS,
): Promise<InstalledCrds> {
  const names = [...new Set(found.map(({ crd }) => crd.metadata?.name ?? ''))];
  if (found.length > 0) {
    const clientset = await admin.clientset();
    const results = await Promise.allSettled(
      found.map((crd) => applyCrd(clientset, crd, timeoutMs)),
    );
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason as Error;
  }
  let uninstalled: Promise<void> | undefined;
  return {
    names,
    uninstall: () =>
      (uninstalled ??= (async () => {
        const clientset = await admin.clientset();
        const client = clientset.apiextensionsV1.customResourceDefinitions();
        await Promise.all(
          names.map(async (name) => {
            try {
              await client.delete(name);
            } catch (error) {
              if (!(ApiError.isInstance(error) && error.statusCode === 404)) throw error;
            }
            await waitUntilGone(clientset, name, 60_000);
          }),
        );
      })()),
  };
}
