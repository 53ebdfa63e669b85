import { RuntimeError } from '../errors.js';
import type { ConversionDefinition, VersionConverter } from './conversion.js';
import {
  copyJson,
  exceedsDepth,
  isJsonObject,
  ownValue,
  type JsonObject,
} from './conversion-json.js';
import { restoredMetadata } from './conversion-metadata.js';
import { quoted } from './conversion-review.js';

/** A converter's message is cut here: it goes into the API server's error, which clients print. */
const MAX_MESSAGE_CHARS = 1024;
/** Names longer than Kubernetes allows (253) are cut in messages: they come from the sender. */
const MAX_NAME_CHARS = 253;

interface RegisteredKind {
  readonly group: string;
  readonly kind: string;
  readonly hub: string;
  /** spokes by version; the hub has none. */
  readonly spokes: ReadonlyMap<string, VersionConverter<unknown, unknown>>;
}

/** GroupVersion is an apiVersion split; `group` is '' for the core group. */
interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

function splitAPIVersion(apiVersion: string): GroupVersion | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1 && parts[0] !== '') return { group: '', version: apiVersion };
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') {
    return { group: parts[0] as string, version: parts[1] as string };
  }
  return undefined;
}

function cut(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

function errorMessage(error: unknown): string {
  return cut(error instanceof Error ? error.message : String(error), MAX_MESSAGE_CHARS);
}

/** objectName is `namespace/name` (or `name` when cluster-scoped), as messages name an object. */
function objectName(metadata: JsonObject): string {
  const name = ownValue(metadata, 'name');
  const namespace = ownValue(metadata, 'namespace');
  const shown = typeof name === 'string' && name !== '' ? cut(name, MAX_NAME_CHARS) : '(no name)';
  return typeof namespace === 'string' && namespace !== ''
    ? `${cut(namespace, MAX_NAME_CHARS)}/${shown}`
    : shown;
}

function isThenable(value: unknown): boolean {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function invalid(message: string): RuntimeError {
  return new RuntimeError('ERR_RUNTIME_INVALID_ARGUMENT', message);
}

function checkedKind(definition: ConversionDefinition<unknown>): RegisteredKind {
  if (!isJsonObject(definition)) throw invalid('a conversion definition must be an object');
  const { group, kind, plural, hub, spokes } = definition;
  for (const [field, value] of Object.entries({ group, kind, plural, hub })) {
    if (typeof value !== 'string' || value === '') {
      throw invalid(`conversion definition ${quoted(kind)}: ${field} must be a non-empty string`);
    }
  }
  if (!isJsonObject(spokes)) {
    throw invalid(`conversion definition for ${kind}.${group}: spokes must be an object`);
  }
  const byVersion = new Map<string, VersionConverter<unknown, unknown>>();
  for (const [version, converter] of Object.entries(spokes as Record<string, unknown>)) {
    if (version === hub) {
      throw new RuntimeError(
        'ERR_RUNTIME_CONFIGURATION',
        `conversion definition for ${kind}.${group}: version ${version} is both the hub and a spoke`,
      );
    }
    const { toHub, fromHub } = (isJsonObject(converter) ? converter : {}) as Partial<
      VersionConverter<unknown, unknown>
    >;
    if (typeof toHub !== 'function' || typeof fromHub !== 'function') {
      throw invalid(
        `conversion definition for ${kind}.${group}: spoke ${version} needs toHub and fromHub functions`,
      );
    }
    byVersion.set(version, converter as VersionConverter<unknown, unknown>);
  }
  return { group, kind, hub, spokes: byVersion };
}

/** Converted is one object converted, or the failure that stopped it (code `ERR_RUNTIME_CONVERSION`). */
export type Converted = { readonly object: JsonObject } | { readonly failure: RuntimeError };

/**
 * ConversionTable converts objects between the versions of the kinds it was given, hub and
 * spoke: a spoke goes to the hub by its `toHub`, the hub to a spoke by the spoke's `fromHub`,
 * one spoke to another through the hub, and an object already in the desired version is only
 * checked. It holds no state between calls.
 */
export class ConversionTable {
  private readonly kinds = new Map<string, RegisteredKind>();

  /**
   * @throws RuntimeError `ERR_RUNTIME_CONFIGURATION` when two definitions are for one group and
   * kind, or a version is both hub and spoke; `ERR_RUNTIME_INVALID_ARGUMENT` for a malformed one.
   */
  constructor(
    definitions: readonly ConversionDefinition<unknown>[],
    private readonly maxDepth: number,
  ) {
    const given: unknown = definitions;
    if (!Array.isArray(given)) throw invalid('conversion definitions must be an array');
    for (const definition of definitions) {
      const registered = checkedKind(definition);
      const key = `${registered.kind}.${registered.group}`;
      if (this.kinds.has(key)) {
        throw new RuntimeError(
          'ERR_RUNTIME_CONFIGURATION',
          `conversion for ${key} is defined twice: one definition per group and kind`,
        );
      }
      this.kinds.set(key, registered);
    }
  }

  /** versionsOf lists the hub's version then each spoke's, for a group and kind it knows. */
  versionsOf(group: string, kind: string): readonly string[] {
    const registered = this.kinds.get(`${kind}.${group}`);
    return registered === undefined ? [] : [registered.hub, ...registered.spokes.keys()];
  }

  /**
   * convert returns `object` in `desiredAPIVersion`, with its apiVersion and kind set and its
   * metadata restored as the API server would (labels and annotations from the converters), or
   * the failure, whose message names the object and both versions but quotes none of its data.
   * Converters get objects this table owns: a copy of `object`'s metadata, and of the rest when
   * `copyObject` is set (the webhook owns the objects it parsed and skips that copy).
   */
  convert(object: unknown, desiredAPIVersion: string, copyObject: boolean): Converted {
    const fail = (message: string, cause?: unknown): Converted => ({
      failure: new RuntimeError('ERR_RUNTIME_CONVERSION', message, { cause }),
    });
    if (!isJsonObject(object)) return fail('an object to convert is not a JSON object');
    const metadata = ownValue(object, 'metadata') ?? {};
    if (!isJsonObject(metadata))
      return fail('an object to convert has metadata that is not an object');
    const kind = ownValue(object, 'kind');
    const apiVersion = ownValue(object, 'apiVersion');
    const name = objectName(metadata);
    if (typeof kind !== 'string' || kind === '' || typeof apiVersion !== 'string') {
      return fail(`cannot convert ${name}: it has no kind or apiVersion`);
    }
    const subject = (): string =>
      `cannot convert ${cut(kind, MAX_NAME_CHARS)} ${name} from ${quoted(apiVersion)} to ${quoted(desiredAPIVersion)}`;
    const from = splitAPIVersion(apiVersion);
    const to = splitAPIVersion(desiredAPIVersion);
    if (from === undefined || to === undefined)
      return fail(`${subject()}: not a <group>/<version>`);
    if (from.group !== to.group) return fail(`${subject()}: the versions are of different groups`);
    const registered = this.kinds.get(`${kind}.${from.group}`);
    if (registered === undefined) return fail(`${subject()}: this webhook converts no such kind`);
    for (const version of [from.version, to.version]) {
      if (version !== registered.hub && !registered.spokes.has(version)) {
        return fail(
          `${subject()}: version ${quoted(version)} has no converter (known: ${[registered.hub, ...registered.spokes.keys()].join(', ')})`,
        );
      }
    }
    if (exceedsDepth(object, this.maxDepth)) {
      return fail(`${subject()}: it nests deeper than ${this.maxDepth} levels`);
    }
    const copy = copyObject ? copyJson(object, this.maxDepth) : object;
    const original = copyObject ? (copyJson(metadata, this.maxDepth) as JsonObject) : metadata;
    const given = copyJson(metadata, this.maxDepth) as JsonObject;
    let current: JsonObject = { ...(copy as JsonObject), metadata: given };
    let currentMetadata = given;
    const steps: [version: string, direction: 'toHub' | 'fromHub', target: string][] = [];
    if (from.version !== registered.hub && from.version !== to.version) {
      steps.push([from.version, 'toHub', registered.hub]);
    }
    if (to.version !== registered.hub && from.version !== to.version) {
      steps.push([to.version, 'fromHub', to.version]);
    }
    for (const [index, [version, direction, target]] of steps.entries()) {
      const converter = registered.spokes.get(version) as VersionConverter<unknown, unknown>;
      let output: unknown;
      try {
        output = converter[direction](current);
      } catch (error) {
        return fail(`${subject()}: ${version}'s ${direction} threw: ${errorMessage(error)}`, error);
      }
      if (isThenable(output)) {
        return fail(
          `${subject()}: ${version}'s ${direction} returned a promise (converters are synchronous)`,
        );
      }
      if (!isJsonObject(output)) {
        return fail(`${subject()}: ${version}'s ${direction} returned no object`);
      }
      const last = index === steps.length - 1;
      // A hub handed on to fromHub gets its own copy of the original metadata, so that what
      // fromHub changes in place never reaches the metadata the answer restores.
      const base = last ? original : (copyJson(original, this.maxDepth) as JsonObject);
      const restored = restoredMetadata(base, currentMetadata, ownValue(output, 'metadata'));
      if ('problem' in restored) return fail(`${subject()}: ${restored.problem}`);
      current = this.stamped(output, `${registered.group}/${target}`, kind, restored.metadata);
      currentMetadata = restored.metadata;
    }
    if (steps.length === 0) current = this.stamped(current, desiredAPIVersion, kind, original);
    if (exceedsDepth(current, this.maxDepth)) {
      return fail(
        `${subject()}: the converted object nests deeper than ${this.maxDepth} levels, holds a cycle or a bigint, or repeats shared parts past ten million values`,
      );
    }
    return { object: current };
  }

  /** stamped is `object` with apiVersion, kind and metadata first and set, the rest kept. */
  private stamped(
    object: JsonObject,
    apiVersion: string,
    kind: string,
    metadata: JsonObject,
  ): JsonObject {
    const rest: JsonObject = { ...object };
    delete rest['apiVersion'];
    delete rest['kind'];
    delete rest['metadata'];
    return { apiVersion, kind, metadata, ...rest };
  }
}
