import { KubeError } from '@k/config/errors';
import { ApiError, type Status } from '@k/rest/errors';

/** The stable codes of {@link ClientsetError}. */
export type ClientsetErrorCode =
  /** The resource (or subresource) does not serve the verb, as discovery lists it. */
  | 'ERR_CLIENTSET_VERB_NOT_SUPPORTED'
  /** An object given to create, update, apply or delete lacks what the call needs (a name, a kind). */
  | 'ERR_CLIENTSET_INVALID_OBJECT'
  /** An argument or option has the wrong type or value (a plain-JavaScript caller's mistake). */
  | 'ERR_CLIENTSET_INVALID_ARGUMENT'
  /** The REST mapper found no resource for a kind (or no kind for a resource), even after rediscovery. */
  | 'ERR_CLIENTSET_NO_MAPPING'
  /** Discovery failed or answered something that is not discovery. */
  | 'ERR_CLIENTSET_DISCOVERY'
  /** A manifest is not valid YAML, aliases blow it up, or a document is not a Kubernetes object ({@link ManifestError}). */
  | 'ERR_CLIENTSET_MANIFEST'
  /** The options cannot work together, or a layer is registered twice in one container. */
  | 'ERR_CLIENTSET_CONFIGURATION'
  /** A CustomResourceDefinition was not Established, or its kind not served, in time ({@link CrdNotEstablishedError}). */
  | 'ERR_CLIENTSET_CRD_NOT_ESTABLISHED'
  /** exec or attach ended with a failure Status on the error channel other than an exit code ({@link RemoteCommandError}). */
  | 'ERR_CLIENTSET_REMOTE_COMMAND'
  /** A forwarded port failed: the error stream said why, or the connection broke ({@link PortForwardError}). */
  | 'ERR_CLIENTSET_PORT_FORWARD'
  /** Copying to or from a container failed: its tar failed, or the archive is malformed. */
  | 'ERR_CLIENTSET_COPY';

/**
 * ClientsetError is every failure @k/clientset itself detects (the server's answers are `ApiError`s
 * from @k/rest). `resource` names the resource concerned (`deployments.apps`), when there is one.
 */
export class ClientsetError extends KubeError {
  static override readonly brand: symbol = Symbol.for('@k/clientset.ClientsetError');
  declare readonly code: ClientsetErrorCode;
  readonly resource: string | undefined;

  constructor(
    code: ClientsetErrorCode,
    message: string,
    options: { resource?: string | undefined; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.resource = options.resource;
  }
}

/**
 * RemoteCommandError is an exec or attach whose error channel said `Failure` for another reason
 * than a non-zero exit code (which is a result, not an error): the command could not start, the
 * container is gone, the runtime failed. `status` is the server's Status as sent (`reason`,
 * `message`, `details`).
 */
export class RemoteCommandError extends ClientsetError {
  static override readonly brand: symbol = Symbol.for('@k/clientset.RemoteCommandError');
  declare readonly code: 'ERR_CLIENTSET_REMOTE_COMMAND';
  readonly status: Status;

  constructor(message: string, status: Status) {
    super('ERR_CLIENTSET_REMOTE_COMMAND', message, { resource: 'pods' });
    this.status = status;
  }

  /** reason is the Status reason (`InternalError`, …; `''` when the server gave none). */
  get reason(): string {
    return this.status.reason ?? '';
  }
}

/**
 * PortForwardError is a forwarded connection that failed: `message` is what the server wrote on
 * the port's error stream (`error forwarding port 8080 to pod …`), or the connection's failure
 * (then `cause`). `port` is the pod's port.
 */
export class PortForwardError extends ClientsetError {
  static override readonly brand: symbol = Symbol.for('@k/clientset.PortForwardError');
  declare readonly code: 'ERR_CLIENTSET_PORT_FORWARD';
  readonly port: number;

  constructor(message: string, port: number, options: { cause?: unknown } = {}) {
    super('ERR_CLIENTSET_PORT_FORWARD', message, { resource: 'pods', ...options });
    this.port = port;
  }
}

/**
 * ManifestError is a manifest `parseManifests` or `applyManifests` refuses (code `ERR_CLIENTSET_MANIFEST`):
 * not valid YAML, YAML aliases that repeat too much, or a document that is not a Kubernetes
 * object. `document` is the document's place in the text, counting from 1 as the message does;
 * `line` and `column` (from 1) locate a syntax error when the parser knows where it is. The
 * message never quotes the text and nothing that quotes it is kept (no `cause`): a manifest's
 * lines can hold secrets.
 */
export class ManifestError extends ClientsetError {
  static override readonly brand: symbol = Symbol.for('@k/clientset.ManifestError');
  declare readonly code: 'ERR_CLIENTSET_MANIFEST';
  readonly document: number;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(
    document: number,
    message: string,
    position: { line: number; column: number } | undefined = undefined,
  ) {
    super('ERR_CLIENTSET_MANIFEST', message);
    this.document = document;
    this.line = position?.line;
    this.column = position?.column;
  }
}

/** FieldConflict is one field another manager owns, from a server-side apply conflict. */
export interface FieldConflict {
  /** field is the path, e.g. `.data.color` or `.spec.replicas`. */
  field: string;
  /** manager is the field manager that owns it, e.g. `kubectl` (from the server's message). */
  manager: string | undefined;
  message: string;
}

/** parseConflicts reads the `FieldManagerConflict` causes of an apply conflict's Status. */
function parseConflicts(error: ApiError): FieldConflict[] {
  return (error.details?.causes ?? [])
    .filter((cause) => cause.reason === 'FieldManagerConflict')
    .map((cause) => ({
      field: cause.field ?? '',
      manager: /conflict with "([^"]*)"/.exec(cause.message ?? '')?.[1],
      message: cause.message ?? '',
    }));
}

/**
 * ApplyConflictError is a server-side apply that failed (409 Conflict) because other field
 * managers own some of the applied fields: `conflicts` lists each field and its owner. It is an
 * `ApiError` (same `status`, `reason`, `details`, code `ERR_REST_API_STATUS`; `isConflict` is true) and
 * its `cause` is the `ApiError` @k/rest threw. Resolve it by applying with `force: true` (taking
 * the fields over) or by not sending them.
 */
export class ApplyConflictError extends ApiError {
  static override readonly brand: symbol = Symbol.for('@k/clientset.ApplyConflictError');
  readonly conflicts: readonly FieldConflict[];

  constructor(error: ApiError) {
    super(error.status, {
      httpStatusCode: error.httpStatusCode,
      ...(error.request ? { request: error.request } : {}),
      ...(error.retryAfterSeconds !== undefined
        ? { retryAfterSeconds: error.retryAfterSeconds }
        : {}),
      ...(error.contentType !== undefined ? { contentType: error.contentType } : {}),
      cause: error,
    });
    this.conflicts = parseConflicts(error);
  }

  /** from returns an ApplyConflictError for an apply conflict (409 with field conflicts), else `error` unchanged. */
  static from(error: unknown): unknown {
    return ApiError.isInstance(error) &&
      (error.reason === 'Conflict' || error.statusCode === 409) &&
      parseConflicts(error).length > 0
      ? new ApplyConflictError(error)
      : error;
  }
}

/** CrdCondition is one entry of a CustomResourceDefinition's `status.conditions`. */
export interface CrdCondition {
  type: string;
  status: string;
  reason?: string | undefined;
  message?: string | undefined;
}

/**
 * CrdNotEstablishedError is a wait for a CustomResourceDefinition that ran out of time (code
 * `ERR_CLIENTSET_CRD_NOT_ESTABLISHED`): `applyManifests` applied it but the API server did not set its
 * `Established` condition, or did not list its kind in discovery, within `timeoutMs`, or the
 * CRD was deleted meanwhile. `crd` is its name (`widgets.example.com`), `established` says
 * whether it got as far as Established, and `conditions` are the last ones seen: a CRD whose
 * names another one already uses stays `NamesAccepted=False`, and the message quotes the
 * server's reason (`"widgets" is already in use`).
 */
export class CrdNotEstablishedError extends ClientsetError {
  static override readonly brand: symbol = Symbol.for('@k/clientset.CrdNotEstablishedError');
  declare readonly code: 'ERR_CLIENTSET_CRD_NOT_ESTABLISHED';
  readonly crd: string;
  readonly timeoutMs: number;
  readonly established: boolean;
  readonly conditions: readonly CrdCondition[];

  constructor(
    message: string,
    details: {
      crd: string;
      timeoutMs: number;
      established: boolean;
      conditions: readonly CrdCondition[];
      cause?: unknown;
    },
  ) {
    super('ERR_CLIENTSET_CRD_NOT_ESTABLISHED', message, {
      resource: 'customresourcedefinitions.apiextensions.k8s.io',
      cause: details.cause,
    });
    this.crd = details.crd;
    this.timeoutMs = details.timeoutMs;
    this.established = details.established;
    this.conditions = details.conditions;
  }
}

/** KClientsetErrorCode is every code an error of @k/clientset can have. */
export type KClientsetErrorCode = ClientsetErrorCode;
