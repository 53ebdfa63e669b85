import type { ResourceDescriptor } from '@k/clientset';
import type { Logger } from '../logger.js';

/**
 * WebhookCall is one HTTP request the webhook server accepted for a handler: its body, read in
 * full and within the server's size limit, and a signal that aborts when the call's time is up
 * (the server's request timeout) or the server stops without waiting any longer.
 */
export interface WebhookCall {
  /** body is the request body as received (bounded by the server's `maxRequestBytes`). */
  readonly body: Uint8Array;
  /** contentType is the request's `content-type` header, if any. */
  readonly contentType: string | undefined;
  readonly signal: AbortSignal;
  /** logger is the server's, for the handler's own lines. */
  readonly logger: Logger;
}

/** WebhookReply is what a handler answers: an HTTP status and a JSON body the server encodes. */
export interface WebhookReply {
  readonly status: number;
  readonly body: unknown;
}

/**
 * WebhookHandler answers one webhook path: it never throws (a failure is a reply), so the server
 * only moves bytes, bounds and times them.
 */
export type WebhookHandler = (call: WebhookCall) => Promise<WebhookReply>;

/** AdmissionOperation is an operation an admission webhook can be registered for. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * AdmissionRegistrationOptions are the per-webhook fields of a Validating/MutatingWebhookConfiguration
 * entry (admissionregistration.k8s.io/v1) that the handler itself does not decide; each has the
 * default controller-runtime's markers give.
 */
export interface AdmissionRegistrationOptions {
  /** name is the webhook's fully qualified name (default `<validate|mutate>.<plural>.<group or core>`). */
  readonly name?: string | undefined;
  /** failurePolicy when the webhook cannot be called or fails (default `Fail`). */
  readonly failurePolicy?: 'Fail' | 'Ignore' | undefined;
  /** sideEffects (default `None`: the handler only decides; `NoneOnDryRun` if it writes on real requests only). */
  readonly sideEffects?: 'None' | 'NoneOnDryRun' | undefined;
  /** timeoutSeconds the API server waits for the webhook, 1–30 (default 10). */
  readonly timeoutSeconds?: number | undefined;
  /** matchPolicy (default `Equivalent`: also called for the same resource through other versions). */
  readonly matchPolicy?: 'Exact' | 'Equivalent' | undefined;
  /** namespaceSelector and objectSelector limit which objects are sent (a LabelSelector each). */
  readonly namespaceSelector?: LabelSelectorLike | undefined;
  readonly objectSelector?: LabelSelectorLike | undefined;
  /** matchConditions are CEL expressions that must all be true for the webhook to be called (at most 64). */
  readonly matchConditions?:
    readonly { readonly name: string; readonly expression: string }[] | undefined;
  /** reinvocationPolicy of a mutating webhook (default `Never`). */
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded' | undefined;
  /** subresources also sent to the webhook besides the resource itself, e.g. `['status']` (default none). */
  readonly subresources?: readonly string[] | undefined;
}

/** LabelSelectorLike is a metav1.LabelSelector. */
export interface LabelSelectorLike {
  readonly matchLabels?: Readonly<Record<string, string>> | undefined;
  readonly matchExpressions?:
    | readonly {
        readonly key: string;
        readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
        readonly values?: readonly string[] | undefined;
      }[]
    | undefined;
}

/**
 * WebhookRegistration is what the server knows of one registered webhook, enough to write its
 * entry in a webhook configuration or a CRD's `spec.conversion`.
 */
export type WebhookRegistration =
  | {
      readonly type: 'validating' | 'mutating';
      /** path the server serves it at, e.g. `/validate-demo-k-io-v1-webapp`. */
      readonly path: string;
      readonly resource: ResourceDescriptor;
      /** operations it is called for (those the handlers cover). */
      readonly operations: readonly AdmissionOperation[];
      readonly options: AdmissionRegistrationOptions;
    }
  | {
      readonly type: 'conversion';
      readonly path: string;
      /** crdName is `<plural>.<group>`, the CRD whose `spec.conversion` points here. */
      readonly crdName: string;
      /** versions the converters cover (the hub's and each spoke's). */
      readonly versions: readonly string[];
    };
