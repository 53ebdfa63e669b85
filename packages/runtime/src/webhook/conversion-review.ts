import { isJsonObject, ownValue } from './conversion-json.js';

/** CONVERSION_REVIEW_API_VERSION is the one ConversionReview version served (CRDs list it in `conversionReviewVersions`). */
const CONVERSION_REVIEW_API_VERSION = 'apiextensions.k8s.io/v1';

/**
 * ConversionReview is apiextensions.k8s.io/v1's ConversionReview: the API server sends a
 * `request`, the webhook answers the same kind with a `response`.
 */
export interface ConversionReview {
  readonly apiVersion: typeof CONVERSION_REVIEW_API_VERSION;
  readonly kind: 'ConversionReview';
  readonly request?: ConversionRequest | undefined;
  readonly response?: ConversionResponse | undefined;
}

/** ConversionRequest asks for `objects` (any versions of one CRD's kind) in `desiredAPIVersion`. */
export interface ConversionRequest {
  /** uid identifies the call; the response must echo it. */
  readonly uid: string;
  /** desiredAPIVersion is `<group>/<version>`, e.g. `demo.k.io/v1`. */
  readonly desiredAPIVersion: string;
  /** objects are whole objects (a LIST sends every item not yet in the desired version). */
  readonly objects: readonly unknown[];
}

/** ConversionResponse answers a request: every object converted, in order, or a failure. */
export interface ConversionResponse {
  readonly uid: string;
  /** convertedObjects are the request's objects in the desired version, same count, same order. */
  readonly convertedObjects: readonly unknown[];
  readonly result: ConversionResult;
}

/** ConversionResult is the response's metav1.Status: `Failure` fails the whole request with `message`. */
export interface ConversionResult {
  readonly status: 'Success' | 'Failure';
  readonly message?: string | undefined;
}

/** ReadReview is a request read from a body, or why the body is not one (with the uid if it had one). */
export type ReadReview =
  | { readonly request: ConversionRequest }
  | { readonly problem: string; readonly uid: string | undefined };

const MAX_QUOTED = 64;

/** quoted shows a value the sender chose, cut short, for a message. */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : typeof value;
  return JSON.stringify(text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text);
}

/**
 * readConversionReview parses a body as a v1 ConversionReview request: UTF-8 JSON, that
 * apiVersion and kind, a `request` with a non-empty `uid`, a `desiredAPIVersion` and an
 * `objects` array (`null` is none, as Go decodes it). JSON.parse builds plain objects whose
 * `__proto__` keys are own data, and does not recurse, however deep the body nests.
 */
export function readConversionReview(body: Uint8Array): ReadReview {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return { problem: 'the body is not UTF-8 JSON', uid: undefined };
  }
  if (!isJsonObject(parsed)) {
    return { problem: 'the body is not a JSON object', uid: undefined };
  }
  const apiVersion = ownValue(parsed, 'apiVersion');
  const kind = ownValue(parsed, 'kind');
  if (apiVersion !== CONVERSION_REVIEW_API_VERSION || kind !== 'ConversionReview') {
    return {
      problem: `the body is not an ${CONVERSION_REVIEW_API_VERSION} ConversionReview (apiVersion ${quoted(apiVersion)}, kind ${quoted(kind)}; list v1 in the CRD's conversionReviewVersions)`,
      uid: undefined,
    };
  }
  const request = ownValue(parsed, 'request');
  if (!isJsonObject(request)) return { problem: 'the review has no request', uid: undefined };
  const uid = ownValue(request, 'uid');
  if (typeof uid !== 'string' || uid === '') {
    return { problem: 'the request has no uid', uid: undefined };
  }
  const desiredAPIVersion = ownValue(request, 'desiredAPIVersion');
  if (typeof desiredAPIVersion !== 'string' || desiredAPIVersion === '') {
    return { problem: 'the request has no desiredAPIVersion', uid };
  }
  const objects = ownValue(request, 'objects') ?? [];
  if (!Array.isArray(objects)) return { problem: "the request's objects are not an array", uid };
  return { request: { uid, desiredAPIVersion, objects } };
}

/** conversionAnswer is the review that answers a request: the converted objects, or a failure. */
export function conversionAnswer(
  uid: string,
  outcome: { readonly convertedObjects: readonly unknown[] } | { readonly failure: string },
): ConversionReview {
  const response: ConversionResponse =
    'failure' in outcome
      ? { uid, convertedObjects: [], result: { status: 'Failure', message: outcome.failure } }
      : { uid, convertedObjects: outcome.convertedObjects, result: { status: 'Success' } };
  return { apiVersion: CONVERSION_REVIEW_API_VERSION, kind: 'ConversionReview', response };
}
