import { RuntimeError } from '../errors.js';
import { ConversionTable } from './conversion-table.js';
import { conversionAnswer, readConversionReview } from './conversion-review.js';
import type { WebhookHandler } from './webhook-handler.js';

/**
 * VersionConverter converts one spoke version of a kind to the hub version and back. Both are
 * synchronous and pure: they get an object the webhook owns (change it or build a new one) with
 * apiVersion, kind and metadata already set, and whatever they return has its apiVersion and
 * kind set for them and its metadata put back, all but labels and annotations (the API server
 * keeps only those: stash there, in an annotation, what the other version cannot hold).
 */
export interface VersionConverter<Hub, Spoke> {
  toHub(spoke: Spoke): Hub;
  fromHub(hub: Hub): Spoke;
}

/**
 * ConversionDefinition is how one CRD's kind converts between its versions, hub and spoke
 * (controller-runtime's Hub/Convertible): every spoke converts to the `hub` version and back, so
 * a spoke reaches another spoke through the hub. `Hub` types every `fromHub`'s parameter and
 * `toHub`'s result; `Spokes` maps each spoke version to its type (`<WebApp, { v1alpha1:
 * WebAppV1alpha1 }>`); when not given, annotate each `toHub`'s parameter, or write each
 * converter as a `VersionConverter<Hub, Spoke>`.
 */
export interface ConversionDefinition<
  Hub,
  Spokes extends Record<string, unknown> = Record<string, unknown>,
> {
  /** group of the CRD, e.g. `demo.k.io`. */
  readonly group: string;
  /** kind, e.g. `WebApp`. */
  readonly kind: string;
  /** plural resource name, e.g. `webapps` (the CRD is `<plural>.<group>`). */
  readonly plural: string;
  /** hub is the hub version, e.g. `v1`; it has no converter of its own. */
  readonly hub: string;
  /** spokes are the converters of every other served version, by version. */
  readonly spokes: { readonly [Version in keyof Spokes]: VersionConverter<Hub, Spokes[Version]> };
}

/** ConversionHandlerOptions bound what one conversion call may hold. */
export interface ConversionHandlerOptions {
  /**
   * maxObjects converted in one call (default 100,000). The API server sends every item of a LIST
   * not yet in the desired version in one review, unpaged when served from its watch cache; the
   * server's body limit bounds a call as well.
   */
  readonly maxObjects?: number | undefined;
  /**
   * maxDepth of an object's nesting (default 10,000, kube-apiserver's own bound on JSON it
   * decodes: any object it stores converts). Nothing on the way recurses: the server encodes the
   * answer without JSON.stringify, which overflows V8's stack at a few thousand levels.
   */
  readonly maxDepth?: number | undefined;
}

export const DEFAULT_MAX_OBJECTS = 100_000;
export const DEFAULT_MAX_DEPTH = 10_000;
/** Long reviews let the event loop run (and the call's signal fire) every this many objects. */
const YIELD_EVERY = 512;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RuntimeError('ERR_RUNTIME_INVALID_ARGUMENT', `${name} must be a positive integer`);
  }
  return value;
}

const yieldToEventLoop = (): Promise<void> =>
  new Promise((resolve) => {
    if (typeof globalThis.setImmediate === 'function') globalThis.setImmediate(resolve);
    else setTimeout(resolve, 0);
  });

/**
 * conversionHandler answers apiextensions.k8s.io/v1 ConversionReviews for every definition at one
 * path (controller-runtime serves `/convert`), telling kinds apart by each object's group and
 * kind. It answers HTTP 200 with every object converted, in the request's order, and the uid
 * echoed; or HTTP 200 with result `Failure` and a message naming the first object that failed
 * (`<kind> <namespace>/<name> from <apiVersion> to <apiVersion>: why`) when a kind or version has
 * no converter, a converter throws, or its labels or annotations would be refused by the API
 * server — the API server then fails the whole read or write with that message. A body that is
 * not a v1 ConversionReview with a uid gets HTTP 400 (as controller-runtime answers) with a
 * `Failure` review saying why (uid echoed when it had one). Failures are logged with their
 * `RuntimeError` (`ERR_RUNTIME_CONVERSION`); no message quotes an object's data.
 *
 * @throws RuntimeError `ERR_RUNTIME_CONFIGURATION` when two definitions share a group and kind;
 * `ERR_RUNTIME_INVALID_ARGUMENT` for a malformed definition or option.
 */
export function conversionHandler(
  definitions: readonly ConversionDefinition<unknown>[],
  options: ConversionHandlerOptions = {},
): WebhookHandler {
  const maxObjects = positiveInteger('maxObjects', options.maxObjects, DEFAULT_MAX_OBJECTS);
  const maxDepth = positiveInteger('maxDepth', options.maxDepth, DEFAULT_MAX_DEPTH);
  const table = new ConversionTable(definitions, maxDepth);
  return async (call) => {
    const read = readConversionReview(call.body);
    if ('problem' in read) {
      call.logger.warn('conversion review refused', { problem: read.problem });
      return { status: 400, body: conversionAnswer(read.uid ?? '', { failure: read.problem }) };
    }
    const { uid, desiredAPIVersion, objects } = read.request;
    const failed = (failure: RuntimeError) => {
      call.logger.error('conversion failed', { uid, code: failure.code, error: failure });
      return { status: 200, body: conversionAnswer(uid, { failure: failure.message }) };
    };
    if (objects.length > maxObjects) {
      return failed(
        new RuntimeError(
          'ERR_RUNTIME_CONVERSION',
          `the review holds ${objects.length} objects, more than the ${maxObjects} this webhook converts in one call`,
        ),
      );
    }
    const convertedObjects: unknown[] = [];
    for (const [index, object] of objects.entries()) {
      if (index > 0 && index % YIELD_EVERY === 0) {
        await yieldToEventLoop();
        if (call.signal.aborted) {
          return failed(
            new RuntimeError(
              'ERR_RUNTIME_CONVERSION',
              `the call ended after ${index} of ${objects.length} objects were converted`,
            ),
          );
        }
      }
      const converted = table.convert(object, desiredAPIVersion, false);
      if ('failure' in converted) return failed(converted.failure);
      convertedObjects.push(converted.object);
    }
    return { status: 200, body: conversionAnswer(uid, { convertedObjects }) };
  };
}
