import type { GroupVersionKind, GroupVersionResource } from '@k/clientset';
import type { AdmissionOperation, WebhookCall, WebhookReply } from './webhook-handler.js';

/** ADMISSION_API_VERSION is the only AdmissionReview version the webhooks speak (Kubernetes ≥ 1.16). */
const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

/** AdmissionUserInfo is who made the request (authentication.k8s.io/v1 UserInfo). */
export interface AdmissionUserInfo {
  readonly username?: string | undefined;
  readonly uid?: string | undefined;
  readonly groups?: readonly string[] | undefined;
  readonly extra?: Readonly<Record<string, readonly string[]>> | undefined;
}

/**
 * AdmissionRequest is what the API server asks a webhook about one request (admission.k8s.io/v1),
 * as sent: `object` is the object of a CREATE or UPDATE (a CONNECT's options object), `oldObject`
 * the stored object of an UPDATE or DELETE.
 */
export interface AdmissionRequest<T = unknown> {
  /** uid identifies this call; the response must carry it back. */
  readonly uid: string;
  /** kind is the object's kind as the webhook was registered for it (after any conversion). */
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource?: string | undefined;
  /** requestKind is the kind of the original API request, when it differs (matchPolicy Equivalent). */
  readonly requestKind?: GroupVersionKind | undefined;
  readonly requestResource?: GroupVersionResource | undefined;
  readonly requestSubResource?: string | undefined;
  /** name is the object's name; `''` on a CREATE whose name the server generates. */
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
  readonly operation: AdmissionOperation;
  readonly userInfo: AdmissionUserInfo;
  readonly object?: T | undefined;
  readonly oldObject?: T | undefined;
  /** dryRun is true when the change will not be stored. */
  readonly dryRun?: boolean | undefined;
  /** options are the operation's options (`CreateOptions`, `UpdateOptions`, `DeleteOptions`, …). */
  readonly options?: Readonly<Record<string, unknown>> | undefined;
}

/** AdmissionStatusCause is one field at fault in a denial (a metav1 StatusCause). */
export interface AdmissionStatusCause {
  readonly reason: string;
  readonly message: string;
  readonly field: string;
}

/** AdmissionStatus is why a request was refused (a metav1 Status; ignored when allowed). */
export interface AdmissionStatus {
  readonly status: 'Failure';
  readonly code: number;
  readonly reason?: string | undefined;
  readonly message: string;
  readonly details?: { readonly causes: readonly AdmissionStatusCause[] } | undefined;
}

/** AdmissionResponse is a webhook's answer (admission.k8s.io/v1). */
export interface AdmissionResponse {
  /** uid is the request's. */
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: AdmissionStatus | undefined;
  /** patch is the RFC 6902 JSON Patch to apply to the object, base64-encoded (mutating webhooks only). */
  readonly patch?: string | undefined;
  readonly patchType?: 'JSONPatch' | undefined;
  /** warnings are shown to the client that made the request. */
  readonly warnings?: readonly string[] | undefined;
  /** auditAnnotations are added to the request's audit event (keys prefixed with the webhook's name). */
  readonly auditAnnotations?: Readonly<Record<string, string>> | undefined;
}

/** AdmissionReview is the envelope of both a request and its response. */
export interface AdmissionReview<T = unknown> {
  readonly apiVersion: typeof ADMISSION_API_VERSION;
  readonly kind: 'AdmissionReview';
  readonly request?: AdmissionRequest<T> | undefined;
  readonly response?: AdmissionResponse | undefined;
}

/** DecodedAdmissionReview is a request read from a call, or why it cannot be (and its uid, if found). */
type DecodedAdmissionReview =
  | { readonly ok: true; readonly request: AdmissionRequest }
  | { readonly ok: false; readonly uid: string; readonly message: string };

const OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

/** What a sender wrote is quoted in a message at most this long: enough to recognise it. */
const MAX_QUOTED_CHARS = 64;

/** quoted is `value` as a JSON string for a message, cut at {@link MAX_QUOTED_CHARS}. */
function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return JSON.stringify(
    text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * decodeAdmissionReview reads the AdmissionReview of a call: a non-empty `application/json` body
 * (parameters such as `charset` allowed) holding an `admission.k8s.io/v1` `AdmissionReview` whose
 * `request` has a `uid`, a known `operation`, and (when present) an object `userInfo`, `object`,
 * `oldObject` and `options` and a boolean `dryRun`. It never throws: anything else is a message
 * that quotes no more of the body than a name, with the request's uid when one could be read.
 * `JSON.parse` keeps a `__proto__` key as an own property, never a prototype.
 */
export function decodeAdmissionReview(call: WebhookCall): DecodedAdmissionReview {
  const refuse = (message: string, uid = ''): DecodedAdmissionReview => ({
    ok: false,
    uid,
    message,
  });
  if (call.body.length === 0) return refuse('the request body is empty');
  const mediaType = call.contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return refuse(`content type ${quoted(call.contentType ?? '')} is not application/json`);
  }
  let review: unknown;
  try {
    review = JSON.parse(new TextDecoder().decode(call.body));
  } catch {
    // The parser's message quotes the body, which may hold a Secret: say only what failed.
    return refuse('the request body is not valid JSON');
  }
  if (!isRecord(review)) return refuse('the request body is not an AdmissionReview');
  const request = review['request'];
  const uid =
    isRecord(request) && typeof request['uid'] === 'string' && request['uid'].length <= 256
      ? request['uid']
      : '';
  if (review['apiVersion'] !== ADMISSION_API_VERSION || review['kind'] !== 'AdmissionReview') {
    return refuse(
      `expected an ${ADMISSION_API_VERSION} AdmissionReview, got apiVersion ${quoted(review['apiVersion'])} kind ${quoted(review['kind'])}`,
      uid,
    );
  }
  if (!isRecord(request)) return refuse('the AdmissionReview has no request');
  if (uid === '') return refuse('the AdmissionReview request has no uid');
  if (typeof request['operation'] !== 'string' || !OPERATIONS.has(request['operation'])) {
    return refuse(`unknown operation ${quoted(request['operation'])}`, uid);
  }
  for (const field of ['userInfo', 'object', 'oldObject', 'options']) {
    const value = request[field];
    if (value !== undefined && value !== null && !isRecord(value)) {
      return refuse(`the AdmissionReview request's ${field} is not an object`, uid);
    }
  }
  if (
    request['dryRun'] !== undefined &&
    request['dryRun'] !== null &&
    typeof request['dryRun'] !== 'boolean'
  ) {
    return refuse("the AdmissionReview request's dryRun is not a boolean", uid);
  }
  return {
    ok: true,
    request: { ...request, userInfo: request['userInfo'] ?? {} } as AdmissionRequest,
  };
}

/** reviewReply wraps a response into the AdmissionReview the API server expects, with HTTP 200. */
export function reviewReply(response: AdmissionResponse): WebhookReply {
  const review: AdmissionReview = {
    apiVersion: ADMISSION_API_VERSION,
    kind: 'AdmissionReview',
    response,
  };
  return { status: 200, body: review };
}

/** refusal is a response that refuses a request with `code` (`BadRequest` for 400, `InternalError` for 500). */
export function refusal(uid: string, code: 400 | 500, message: string): AdmissionResponse {
  return {
    uid,
    allowed: false,
    status: {
      status: 'Failure',
      code,
      reason: code === 400 ? 'BadRequest' : 'InternalError',
      message,
    },
  };
}
