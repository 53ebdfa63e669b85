import type * as YamlGuards from '@k/config/yaml-guards';
import type { Document, LineCounter } from '@k/config/yaml-guards';
import { ManifestError } from '../errors.js';
import type { DynamicClient } from '../dynamic/dynamic-client.js';
import type { ApplyConfiguration, UnstructuredObject } from '../resource/object-types.js';
import type { ApplyOptions } from '../resource/request-options.js';
import type { ResourceDescriptor } from '../resource/resource-descriptor.js';
import { REQUEST_OPTION_RULES } from '../resource/option-rules.js';
import {
  isPlainObject,
  NON_NEGATIVE_NUMBER,
  STRING,
  withMethods,
  type ArgumentRule,
} from '../validation/argument-rules.js';
import { checkArgument, checkOptions, type OptionRules } from '../validation/check-arguments.js';
import { waitForCrdServed } from './wait-for-crd.js';

/** DEFAULT_ESTABLISH_TIMEOUT_MS is how long a CRD is waited for by default: 30 s, as `kubectl wait`. */
const DEFAULT_ESTABLISH_TIMEOUT_MS = 30_000;

/**
 * WaitForEstablished says whether {@link applyManifests} waits for the CustomResourceDefinitions
 * it applies: `true` (the default) with a 30 s limit, `{ timeoutMs }` with another, or `false`.
 */
export type WaitForEstablished = boolean | { timeoutMs?: number | undefined };

/** ApplyManifestsOptions configure {@link applyManifests}. */
export interface ApplyManifestsOptions extends ApplyOptions {
  /**
   * namespace for namespaced objects that name none (default `default`). An object naming another
   * namespace is an error, as with `kubectl apply -n`.
   */
  namespace?: string | undefined;
  /**
   * waitForEstablished: after applying a CustomResourceDefinition, wait until the API server has
   * set its `Established` condition and lists its kind in discovery, so that objects of that kind
   * can be applied next — later in the same text or by the caller's next call (what client-go
   * users do with `kubectl wait --for=condition=Established`). Default `true`, for at most
   * 30 s (`{ timeoutMs }` changes that); a CRD not served by then fails the call with a
   * `CrdNotEstablishedError`. With `false` only CRDs whose kind a later object of the same
   * text uses are waited for. Never with `dryRun` (nothing is created to wait for).
   */
  waitForEstablished?: WaitForEstablished | undefined;
  /**
   * establishTimeoutMs is the wait's limit when `waitForEstablished` names none (default 30 s).
   * @deprecated Use `waitForEstablished: { timeoutMs }`.
   */
  establishTimeoutMs?: number | undefined;
}

const MANIFEST_TEXT: ArgumentRule = { ...STRING, expected: 'a string of YAML or JSON manifests' };

const DYNAMIC_CLIENT = withMethods('a DynamicClient with a REST mapper', 'forKind');

const WAIT_FOR_ESTABLISHED: ArgumentRule = {
  expected: 'true, false or { timeoutMs } with a number of 0 or more',
  test: (value) =>
    typeof value === 'boolean' ||
    (isPlainObject(value) &&
      (value.timeoutMs === undefined || NON_NEGATIVE_NUMBER.test(value.timeoutMs))),
};

const APPLY_MANIFESTS_OPTIONS: OptionRules = {
  rules: {
    ...REQUEST_OPTION_RULES,
    namespace: STRING,
    waitForEstablished: WAIT_FOR_ESTABLISHED,
    establishTimeoutMs: NON_NEGATIVE_NUMBER,
  },
  required: ['fieldManager'],
};

/** AppliedManifest is one applied object: as the server answered, and the resource it went to. */
export interface AppliedManifest {
  object: UnstructuredObject;
  resource: ResourceDescriptor;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * MAX_ALIAS_EXPANDED_BYTES is the most JSON a document that uses YAML aliases may expand to:
 * 3 MiB, the API server's limit for a request body. Aliases of one large anchor repeat it in the
 * request without repeating it in the text (a 200 KB manifest became a 200 MB body), and the
 * node count @k/config bounds does not see the size of a scalar.
 */
const MAX_ALIAS_EXPANDED_BYTES = 3 * 1024 * 1024;

/** ManifestEntry is one object of the manifests and the document it came from (from 1). */
interface ManifestEntry {
  object: UnstructuredObject;
  document: number;
}

/** YamlModule is @k/config's yaml (the guards and the parser of the copy it carries). */
type YamlModule = typeof YamlGuards;

function positionOf(
  lineCounter: LineCounter,
  offset: number | undefined,
): { line: number; column: number } | undefined {
  if (offset === undefined) return undefined;
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/**
 * firstDocumentPast returns the number (from 1) of the document at which the nodes YAML aliases
 * repeat, counted over the documents up to it, pass `limit`, or undefined when they never do.
 * One budget covers the whole text, as @k/config's covers one kubeconfig file: otherwise every
 * document could expand to the limit. The count only grows with the documents, so the first
 * such document is found by bisection.
 */
function firstDocumentPast(
  yaml: YamlModule,
  documents: readonly Document[],
  limit: number,
  aliasesRepeatTooMuch: (document: Document, limit: number) => boolean,
): number | undefined {
  const exceeds = (count: number): boolean => {
    const all = new yaml.Document();
    // Anchors resolve within their document and aliases to the nearest anchor before them, so
    // walking the documents one after the other sizes each alias as its own document does.
    const sequence = new yaml.YAMLSeq();
    sequence.items = documents.slice(0, count).map((document) => document.contents);
    all.contents = sequence;
    return aliasesRepeatTooMuch(all, limit);
  };
  if (!exceeds(documents.length)) return undefined;
  let low = 1;
  let high = documents.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (exceeds(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** jsonLengthExceeds reports whether `value` as JSON is longer than `limit`, stopping once it is. */
function jsonLengthExceeds(value: unknown, limit: number): boolean {
  let length = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') length += item.length + 2;
    else if (Array.isArray(item)) {
      length += item.length + 1;
      for (const element of item) pending.push(element);
    } else if (typeof item === 'object' && item !== null) {
      length += 2;
      for (const [key, field] of Object.entries(item)) {
        length += key.length + 4;
        pending.push(field);
      }
    } else length += String(item).length;
    if (length > limit) return true;
  }
  return false;
}

/** unresolvedAliasOffset is where the first alias without an anchor before it starts. */
function unresolvedAliasOffset(yaml: YamlModule, document: Document): number | undefined {
  let offset: number | undefined;
  yaml.visit(document, {
    Alias(_key, alias) {
      if (alias.resolve(document) !== undefined) return undefined;
      offset = alias.range?.[0];
      return yaml.visit.BREAK;
    },
  });
  return offset;
}

function hasAlias(yaml: YamlModule, document: Document): boolean {
  let found = false;
  yaml.visit(document, {
    Alias() {
      found = true;
      return yaml.visit.BREAK;
    },
  });
  return found;
}

/** A kind is quoted in messages only when it looks like one, so no other text is echoed. */
function kindForMessage(kind: string): string {
  return /^[A-Za-z][A-Za-z0-9]{0,62}$/.test(kind) ? ` (${kind})` : '';
}

async function readManifests(text: string): Promise<ManifestEntry[]> {
  // @k/config's yaml, not the yaml package: its build carries one copy that loads in a few
  // milliseconds (docs/decisions/0015), which a program that read a kubeconfig has loaded already.
  const yaml = await import('@k/config/yaml-guards');
  const { aliasesRepeatTooMuch, MAX_ALIASED_NODES, safeYamlMessage } = yaml;
  const lineCounter = new yaml.LineCounter();
  const parsed = yaml.parseAllDocuments(text, {
    version: '1.1',
    uniqueKeys: false,
    // Pretty errors append the offending source line to the message.
    prettyErrors: false,
    lineCounter,
  });
  const documents: Document[] = Array.isArray(parsed) ? parsed : [parsed];
  documents.forEach((document, index) => {
    const [error] = document.errors;
    if (error) {
      // @k/config's message keeps the diagnosis and position, never the source text; the
      // library's error is not kept as cause, since its message can quote the source.
      throw new ManifestError(
        index + 1,
        `document ${index + 1} is not valid yaml: ${safeYamlMessage(error, lineCounter)}`,
        positionOf(lineCounter, error.pos[0]),
      );
    }
  });
  const past = firstDocumentPast(yaml, documents, MAX_ALIASED_NODES, aliasesRepeatTooMuch);
  if (past !== undefined) {
    throw new ManifestError(
      past,
      `document ${past} is not valid yaml: aliases repeat more than ${MAX_ALIASED_NODES} nodes in the documents up to it`,
    );
  }
  const entries: ManifestEntry[] = [];
  documents.forEach((document, index) => {
    const number = index + 1;
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: MAX_ALIASED_NODES });
    } catch (error) {
      const offset = unresolvedAliasOffset(yaml, document);
      const diagnosis = {
        message: (error as Error | undefined)?.message,
        pos: offset === undefined ? undefined : [offset, offset],
      };
      throw new ManifestError(
        number,
        `document ${number} is not valid yaml: ${safeYamlMessage(diagnosis, lineCounter)}`,
        positionOf(lineCounter, offset),
      );
    }
    if (value === null || value === undefined) return;
    if (hasAlias(yaml, document) && jsonLengthExceeds(value, MAX_ALIAS_EXPANDED_BYTES)) {
      throw new ManifestError(
        number,
        `document ${number} is refused: its yaml aliases expand it past ${MAX_ALIAS_EXPANDED_BYTES / 1024 / 1024} MiB of json, more than the api server accepts in a request`,
      );
    }
    const items =
      isObject(value) && value.kind === 'List' && Array.isArray(value.items)
        ? (value.items as unknown[])
        : [value];
    for (const item of items) {
      if (!isObject(item) || typeof item.apiVersion !== 'string' || typeof item.kind !== 'string') {
        throw new ManifestError(
          number,
          `document ${number} is not a kubernetes object (apiVersion and kind are required)`,
        );
      }
      const metadata = item.metadata;
      if (!isObject(metadata) || typeof metadata.name !== 'string' || metadata.name === '') {
        throw new ManifestError(
          number,
          `document ${number}${kindForMessage(item.kind)} has no metadata.name`,
        );
      }
      if (metadata.namespace !== undefined && typeof metadata.namespace !== 'string') {
        throw new ManifestError(
          number,
          `document ${number}${kindForMessage(item.kind)} has a metadata.namespace that is not a string`,
        );
      }
      entries.push({ object: item, document: number });
    }
  });
  return entries;
}

/**
 * parseManifests reads multi-document YAML (or JSON) into objects, in order: empty documents are
 * skipped and `kind: List` documents contribute their items, like kubectl. YAML 1.1 rules apply
 * (`yes` is a boolean), as in kubectl. It fails with a {@link ManifestError} (`ERR_CLIENTSET_MANIFEST`)
 * naming the document, and the line and column of a syntax error, but never quoting the text:
 * on a syntax error; when YAML aliases repeat more than @k/config's limit of nodes (one million,
 * over all the documents: "billion laughs"); when the aliases of a document expand it past 3 MiB
 * of JSON (the API server's request limit); or when a document is not an object with
 * `apiVersion`, `kind` and `metadata.name`. The YAML parser is loaded on first use.
 */
export async function parseManifests(text: string): Promise<UnstructuredObject[]> {
  checkArgument(text, MANIFEST_TEXT, 'text', { where: 'parseManifests' });
  return (await readManifests(text)).map((entry) => entry.object);
}

interface DefinedKind {
  group: string;
  kind: string;
}

function definedKind(object: UnstructuredObject): DefinedKind | undefined {
  if (object.kind !== 'CustomResourceDefinition') return undefined;
  if (!object.apiVersion?.startsWith('apiextensions.k8s.io/')) return undefined;
  const spec = object.spec as { group?: unknown; names?: { kind?: unknown } } | undefined;
  return typeof spec?.group === 'string' && typeof spec.names?.kind === 'string'
    ? { group: spec.group, kind: spec.names.kind }
    : undefined;
}

function groupOf(object: UnstructuredObject): string {
  const apiVersion = object.apiVersion ?? '';
  return apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
}

/**
 * applyManifests server-side applies every object of multi-document YAML, in order, like
 * `kubectl apply --server-side`: each kind is mapped to its resource through discovery, namespaced
 * objects without a namespace go to `options.namespace` (default `default`), and `fieldManager`,
 * `force` (always sent, default false) and `dryRun` apply to every object. After each
 * CustomResourceDefinition it waits, by default, until the CRD is Established and its kind is in
 * discovery (`waitForEstablished`; a watch of the CRD, then discovery fetched again with a
 * backoff), so objects of that kind later in the text, or in the next call, can be applied. It
 * stops at the first failure (an `ApplyConflictError`, an `ApiError`, `ERR_CLIENTSET_NO_MAPPING`, a
 * {@link ManifestError}, a `CrdNotEstablishedError`); objects before it stay applied.
 * Arguments are checked at runtime (`ERR_CLIENTSET_INVALID_ARGUMENT`: `fieldManager` is required) before
 * the text is read.
 */
export async function applyManifests(
  dynamic: DynamicClient,
  text: string,
  options: ApplyManifestsOptions,
): Promise<AppliedManifest[]> {
  const context = { where: 'applyManifests' };
  checkArgument(dynamic, DYNAMIC_CLIENT, 'dynamic', context);
  checkArgument(text, MANIFEST_TEXT, 'text', context);
  checkOptions(options, APPLY_MANIFESTS_OPTIONS, context);
  const entries = await readManifests(text);
  const {
    namespace: defaultNamespace,
    waitForEstablished = true,
    establishTimeoutMs = DEFAULT_ESTABLISH_TIMEOUT_MS,
    ...applyOptions
  } = options;
  const timeoutMs =
    (typeof waitForEstablished === 'object' ? waitForEstablished.timeoutMs : undefined) ??
    establishTimeoutMs;
  const applied: AppliedManifest[] = [];
  for (const [index, { object, document }] of entries.entries()) {
    const client = await dynamic.forKind(
      object.apiVersion as string,
      object.kind as string,
      object.metadata?.namespace,
    );
    const objectNamespace = object.metadata?.namespace;
    if (
      client.descriptor.namespaced &&
      defaultNamespace &&
      objectNamespace &&
      objectNamespace !== defaultNamespace
    ) {
      throw new ManifestError(
        document,
        `document ${document}: the namespace from the provided object "${objectNamespace}" does not match the namespace "${defaultNamespace}". You must pass '--namespace=${objectNamespace}' to perform this operation.`,
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
    if (!kind || applyOptions.dryRun !== undefined || !dynamic.mapper) continue;
    const usedLater = entries
      .slice(index + 1)
      .some((entry) => entry.object.kind === kind.kind && groupOf(entry.object) === kind.group);
    if (waitForEstablished === false && !usedLater) continue;
    await waitForCrdServed({
      crds: scoped,
      discovery: dynamic.mapper.discovery,
      applied: result,
      timeoutMs,
      signal: applyOptions.signal,
    });
  }
  return applied;
}
