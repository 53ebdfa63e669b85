import { Buffer } from 'node:buffer';
import { AdmissionDenied } from '../errors.js';
import type { Logger } from '../logger.js';
import {
  decodeAdmissionReview,
  refusal,
  reviewReply,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionUserInfo,
} from './admission-review.js';
import { createJsonPatch, stringifyJson, toJsonValue, type JsonValue } from './json-patch.js';
import type { AdmissionOperation, WebhookCall, WebhookHandler } from './webhook-handler.js';

/**
 * AdmissionContext is what an admission handler knows of the call besides the object: the whole
 * request, whether it is a dry run, who asked, the call's signal (aborted when the API server's
 * time for the webhook is up or the server stops), the server's logger, and `warn`, which adds a
 * warning the client is shown (kubectl prints `Warning: …`) whether the request is allowed or not.
 */
export interface AdmissionContext<T> {
  readonly request: AdmissionRequest<T>;
  /** dryRun is true when the change will not be stored: a handler with side effects must skip them. */
  readonly dryRun: boolean;
  readonly user: AdmissionUserInfo;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /**
   * warn adds a warning, kept as the API server would show it: control characters become spaces,
   * an empty or repeated warning is dropped, each is cut at 256 characters, and those past 4,096
   * characters in all are dropped.
   */
  warn(message: string): void;
}

/**
 * ValidatingHandlers decide whether a request may go on, per operation: returning allows it,
 * throwing {@link AdmissionDenied} refuses it with that message, reason and field causes, any
 * other error refuses it with code 500 and the error's message (and logs it). An operation
 * without a handler is allowed; so is CONNECT. Objects are the request's, decoded from JSON.
 */
export interface ValidatingHandlers<T> {
  create?: ((object: T, context: AdmissionContext<T>) => void | Promise<void>) | undefined;
  update?:
    ((object: T, oldObject: T, context: AdmissionContext<T>) => void | Promise<void>) | undefined;
  /** delete gets the object being deleted (the request's `oldObject`). */
  delete?: ((oldObject: T, context: AdmissionContext<T>) => void | Promise<void>) | undefined;
}

/**
 * MutatingHandlers change the object of a CREATE or UPDATE before it is validated and stored.
 * `mutate` gets its own copy of the object (also `context.request.object`; the old one of an
 * UPDATE is `context.request.oldObject`): returning nothing keeps that copy as changed, returning
 * an object makes that one the result. The webhook answers the JSON Patch from the request's
 * object to the result (none when nothing changed). Errors refuse the request as for
 * {@link ValidatingHandlers}. DELETE and CONNECT are allowed without a call.
 */
export interface MutatingHandlers<T> {
  mutate(object: T, context: AdmissionContext<T>): T | void | Promise<T | void>;
}

/** Warnings longer than this many characters (code points) are cut, as the API server cuts them. */
const MAX_WARNING_CODE_POINTS = 256;
/** Warnings past this many characters in all are dropped: the API server would cut them anyway. */
const MAX_WARNINGS_CODE_POINTS = 4096;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * boundedWarnings keeps what the API server would show of `warnings` (k8s.io/apiserver's warning
 * recorder): control characters become spaces (it drops a warning that has one), a lone surrogate
 * U+FFFD; an empty or repeated warning is dropped, each is cut at 256 code points, and the list
 * ends before 4,096 code points in all (it would cut every warning to 256 past that).
 */
function boundedWarnings(warnings: readonly string[]): string[] {
  const kept: string[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const warning of warnings) {
    let codePoints = Array.from(warning.replace(LONE_SURROGATE, '\uFFFD').replace(/\p{Cc}/gu, ' '));
    if (codePoints.length > MAX_WARNING_CODE_POINTS)
      codePoints = codePoints.slice(0, MAX_WARNING_CODE_POINTS);
    const text = codePoints.join('');
    if (text.trim() === '' || seen.has(text)) continue;
    if (total + codePoints.length > MAX_WARNINGS_CODE_POINTS) break;
    seen.add(text);
    total += codePoints.length;
    kept.push(text);
  }
  return kept;
}

/** requestFields are the log fields naming a request (never its objects, which may hold secrets). */
function requestFields(request: AdmissionRequest): Record<string, unknown> {
  const { group, version, resource } = request.resource ?? {};
  return {
    uid: request.uid,
    operation: request.operation,
    resource: [group, version, resource]
      .filter((part) => part !== undefined && part !== '')
      .join('/'),
    ...(request.subResource ? { subResource: request.subResource } : {}),
    ...(request.namespace ? { namespace: request.namespace } : {}),
    ...(request.name ? { name: request.name } : {}),
    user: request.userInfo.username,
  };
}

/** refusedBy is the response for an error a handler threw. */
function refusedBy(error: unknown, request: AdmissionRequest, logger: Logger): AdmissionResponse {
  if (AdmissionDenied.isInstance(error)) {
    logger.debug('admission request denied', { ...requestFields(request), reason: error.reason });
    const causes = error.causes.map((cause) => ({
      reason: cause.reason ?? 'FieldValueInvalid',
      message: cause.message,
      field: cause.field,
    }));
    return {
      uid: request.uid,
      allowed: false,
      status: {
        status: 'Failure',
        code: error.statusCode,
        reason: error.reason,
        message: error.message,
        ...(causes.length > 0 ? { details: { causes } } : {}),
      },
    };
  }
  logger.error('admission handler failed', { ...requestFields(request), error });
  return refusal(request.uid, 500, error instanceof Error ? error.message : String(error));
}

/** Decision is what a handler set decides for one request, warnings aside. */
type Decision = (
  request: AdmissionRequest,
  context: AdmissionContext<never>,
) => Promise<AdmissionResponse>;

/** admissionHandler decodes each call, asks `decide`, and answers an AdmissionReview; it never throws. */
function admissionHandler(decide: Decision): WebhookHandler {
  return async (call: WebhookCall) => {
    const decoded = decodeAdmissionReview(call);
    if (!decoded.ok) {
      call.logger.warn('admission request refused: bad request', {
        uid: decoded.uid,
        reason: decoded.message,
      });
      return reviewReply(refusal(decoded.uid, 400, decoded.message));
    }
    const { request } = decoded;
    const warnings: string[] = [];
    const context: AdmissionContext<never> = {
      request: request as AdmissionRequest<never>,
      dryRun: request.dryRun === true,
      user: request.userInfo,
      signal: call.signal,
      logger: call.logger,
      warn: (message: string) => {
        // A handler can call this in a loop: past the bound, keeping more is waste.
        if (warnings.length < MAX_WARNINGS_CODE_POINTS) warnings.push(String(message));
      },
    };
    let response: AdmissionResponse;
    try {
      response = await decide(request, context);
    } catch (error) {
      response = refusedBy(error, request, call.logger);
    }
    const kept = boundedWarnings(warnings);
    return reviewReply(kept.length > 0 ? { ...response, warnings: kept } : response);
  };
}

/** present is whether an object of the request was sent (Kubernetes writes an absent one as `null`). */
function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * validatingHandler answers validating admission calls with `handlers`: each CREATE, UPDATE or
 * DELETE goes to its handler when there is one (a request without the object that handler takes
 * is refused with 400), anything else is allowed.
 */
export function validatingHandler<T>(handlers: ValidatingHandlers<T>): WebhookHandler {
  return admissionHandler(async (request, untyped) => {
    const context = untyped as unknown as AdmissionContext<T>;
    const object = request.object as T;
    const oldObject = request.oldObject as T;
    const missing = (field: string): AdmissionResponse =>
      refusal(request.uid, 400, `the ${request.operation} request has no ${field}`);
    switch (request.operation) {
      case 'CREATE':
        if (handlers.create === undefined) break;
        if (!present(object)) return missing('object');
        await handlers.create(object, context);
        break;
      case 'UPDATE':
        if (handlers.update === undefined) break;
        if (!present(object)) return missing('object');
        if (!present(oldObject)) return missing('oldObject');
        await handlers.update(object, oldObject, context);
        break;
      case 'DELETE':
        if (handlers.delete === undefined) break;
        if (!present(oldObject)) return missing('oldObject');
        await handlers.delete(oldObject, context);
        break;
      default:
        break;
    }
    return { uid: request.uid, allowed: true };
  });
}

/**
 * mutatingHandler answers mutating admission calls with `handlers.mutate` (see
 * {@link MutatingHandlers}): the patch is computed from the object as the API server sent it, at
 * any depth, and a result that is not JSON (a cycle, a bigint) refuses the request with 500.
 */
export function mutatingHandler<T>(handlers: MutatingHandlers<T>): WebhookHandler {
  if (typeof handlers.mutate !== 'function')
    throw new TypeError('mutatingHandler needs a mutate function');
  return admissionHandler(async (request, untyped) => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') {
      return { uid: request.uid, allowed: true };
    }
    if (!present(request.object)) {
      return refusal(request.uid, 400, `the ${request.operation} request has no object`);
    }
    const original = request.object as JsonValue;
    const copy = toJsonValue(original) as T;
    const context = {
      ...untyped,
      request: { ...request, object: copy },
    } as unknown as AdmissionContext<T>;
    const returned = await handlers.mutate(copy, context);
    if (
      returned !== undefined &&
      (typeof returned !== 'object' || returned === null || Array.isArray(returned))
    ) {
      throw new TypeError(
        `mutate returned ${returned === null ? 'null' : typeof returned}, not the object or nothing`,
      );
    }
    const operations = createJsonPatch(original, toJsonValue(returned ?? copy));
    if (operations.length === 0) return { uid: request.uid, allowed: true };
    return {
      uid: request.uid,
      allowed: true,
      patch: Buffer.from(stringifyJson(operations as unknown as JsonValue)).toString('base64'),
      patchType: 'JSONPatch',
    };
  });
}

/**
 * admissionOperations are the operations a handler set covers, for its webhook's rules: those
 * with a validating handler, or CREATE and UPDATE for a mutating one.
 */
export function admissionOperations<T>(
  handlers: ValidatingHandlers<T> | MutatingHandlers<T>,
): AdmissionOperation[] {
  if ('mutate' in handlers) return ['CREATE', 'UPDATE'];
  const operations: AdmissionOperation[] = [];
  if (handlers.create !== undefined) operations.push('CREATE');
  if (handlers.update !== undefined) operations.push('UPDATE');
  if (handlers.delete !== undefined) operations.push('DELETE');
  return operations;
}
