import { setTimeout as sleep } from 'node:timers/promises';
import { ClientsetError } from '../errors.js';
import type { DynamicClient } from '../dynamic/dynamic-client.js';
import type { ApplyConfiguration, UnstructuredObject } from '../resource/object-types.js';
import type { ApplyOptions } from '../resource/request-options.js';
import type { ResourceDescriptor } from '../resource/resource-descriptor.js';

/** ApplyManifestsOptions configure {@link applyManifests}. */
export interface ApplyManifestsOptions extends ApplyOptions {
  /**
   * namespace for namespaced objects that name none (default `default`). An object naming another
   * namespace is an error, as with `kubectl apply -n`.
   */
  namespace?: string;
  /**
   * establishTimeoutMs is how long an object whose kind a CustomResourceDefinition earlier in the
   * same manifests defines waits for that kind to be served (default 30 s).
   */
  establishTimeoutMs?: number;
}

/** AppliedManifest is one applied object: as the server answered, and the resource it went to. */
export interface AppliedManifest {
  object: UnstructuredObject;
  resource: ResourceDescriptor;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * parseManifests reads multi-document YAML (or JSON) into objects, in order: empty documents are
 * skipped and `kind: List` documents contribute their items, like kubectl. YAML 1.1 rules apply
 * (`yes` is a boolean), as in kubectl. A syntax error, or a document that is not an object with
 * `apiVersion`, `kind` and `metadata.name`, fails with `ERR_MANIFEST` naming the document. The
 * YAML parser is loaded on first use.
 */
export async function parseManifests(text: string): Promise<UnstructuredObject[]> {
  const { parseAllDocuments } = await import('yaml');
  const objects: UnstructuredObject[] = [];
  const documents = parseAllDocuments(text, { version: '1.1', uniqueKeys: false });
  const list = Array.isArray(documents) ? documents : [documents];
  list.forEach((document, index) => {
    const number = index + 1;
    const [error] = document.errors;
    if (error) {
      throw new ClientsetError(
        'ERR_MANIFEST',
        `document ${number} is not valid yaml: ${error.message}`,
        {
          cause: error,
        },
      );
    }
    const value: unknown = document.toJS({ maxAliasCount: 1000 });
    if (value === null || value === undefined) return;
    const items =
      isObject(value) && value.kind === 'List' && Array.isArray(value.items)
        ? (value.items as unknown[])
        : [value];
    for (const item of items) {
      if (!isObject(item) || typeof item.apiVersion !== 'string' || typeof item.kind !== 'string') {
        throw new ClientsetError(
          'ERR_MANIFEST',
          `document ${number} is not a kubernetes object (apiVersion and kind are required)`,
        );
      }
      const metadata = item.metadata;
      if (!isObject(metadata) || typeof metadata.name !== 'string' || metadata.name === '') {
        throw new ClientsetError(
          'ERR_MANIFEST',
          `document ${number} (${item.kind}) has no metadata.name`,
        );
      }
      objects.push(item);
    }
  });
  return objects;
}

interface DefinedKind {
  group: string;
  kind: string;
}

function definedKind(object: UnstructuredObject): DefinedKind | undefined {
  if (object.kind !== 'CustomResourceDefinition') return undefined;
  const spec = object.spec as { group?: unknown; names?: { kind?: unknown } } | undefined;
  return typeof spec?.group === 'string' && typeof spec.names?.kind === 'string'
    ? { group: spec.group, kind: spec.names.kind }
    : undefined;
}

/**
 * applyManifests server-side applies every object of multi-document YAML, in order, like
 * `kubectl apply --server-side`: each kind is mapped to its resource through discovery, namespaced
 * objects without a namespace go to `options.namespace` (default `default`), and `fieldManager`,
 * `force` (always sent, default false) and `dryRun` apply to every object. A kind defined by a
 * CRD earlier in the same text is waited for until the API server serves it. It stops at the
 * first failure (an `ApplyConflictError`, an `ApiError`, `ERR_NO_MAPPING`); objects before it
 * stay applied.
 */
export async function applyManifests(
  dynamic: DynamicClient,
  text: string,
  options: ApplyManifestsOptions,
): Promise<AppliedManifest[]> {
  const objects = await parseManifests(text);
  const { namespace: defaultNamespace, establishTimeoutMs = 30_000, ...applyOptions } = options;
  const defined: DefinedKind[] = [];
  const applied: AppliedManifest[] = [];
  for (const object of objects) {
    const client = await clientFor(dynamic, object, defined, establishTimeoutMs, options.signal);
    const objectNamespace = object.metadata?.namespace;
    if (
      client.descriptor.namespaced &&
      defaultNamespace &&
      objectNamespace &&
      objectNamespace !== defaultNamespace
    ) {
      throw new ClientsetError(
        'ERR_MANIFEST',
        `the namespace from the provided object "${objectNamespace}" does not match the namespace "${defaultNamespace}". You must pass '--namespace=${objectNamespace}' to perform this operation.`,
      );
    }
    const scoped = client.descriptor.namespaced
      ? client.inNamespace(objectNamespace || defaultNamespace || 'default')
      : client;
    const result = await scoped.apply(
      object as ApplyConfiguration<UnstructuredObject>,
      applyOptions,
    );
    applied.push({ object: result, resource: client.descriptor });
    const kind = definedKind(object);
    if (kind) defined.push(kind);
  }
  return applied;
}

async function clientFor(
  dynamic: DynamicClient,
  object: UnstructuredObject,
  defined: readonly DefinedKind[],
  establishTimeoutMs: number,
  signal: AbortSignal | undefined,
) {
  const apiVersion = object.apiVersion as string;
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const awaited = defined.some((kind) => kind.group === group && kind.kind === object.kind);
  const deadline = Date.now() + establishTimeoutMs;
  for (;;) {
    try {
      return await dynamic.forKind(apiVersion, object.kind as string, object.metadata?.namespace);
    } catch (error) {
      const retry =
        awaited &&
        ClientsetError.isInstance(error) &&
        error.code === 'ERR_NO_MAPPING' &&
        Date.now() < deadline;
      if (!retry) throw error;
      await sleep(250, undefined, signal ? { signal } : undefined);
    }
  }
}
