import type { ParamValue } from '@k/rest/request';
import type {
  DeleteOptions,
  DryRun,
  LabelSelectorInput,
  ListSelection,
  LogOptions,
  PatchOptions,
} from './request-options.js';

// How the call options become query parameters and bodies, as client-go encodes them.

type Params = Record<string, ParamValue>;

/** labelSelectorText renders a {@link LabelSelectorInput} as kubectl's selector text. */
export function labelSelectorText(selector: LabelSelectorInput | undefined): string | undefined {
  if (selector === undefined || typeof selector === 'string') return selector;
  return Object.entries(selector)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

function dryRunParam(dryRun: DryRun | undefined): string | undefined {
  return dryRun === undefined ? undefined : 'All';
}

/** selectionParams are the query keys of a {@link ListSelection}, omit-empty like client-go. */
export function selectionParams(
  options: ListSelection & { limit?: number; continue?: string },
): Params {
  return {
    labelSelector: labelSelectorText(options.labelSelector) || undefined,
    fieldSelector: options.fieldSelector || undefined,
    resourceVersion: options.resourceVersion || undefined,
    resourceVersionMatch: options.resourceVersionMatch || undefined,
    timeoutSeconds: options.timeoutSeconds,
    limit: options.limit || undefined,
    continue: options.continue || undefined,
  };
}

/** writeParams are the query keys of create, update and patch options. */
export function writeParams(options: PatchOptions): Params {
  return {
    dryRun: dryRunParam(options.dryRun),
    fieldManager: options.fieldManager || undefined,
    fieldValidation: options.fieldValidation,
    force: options.force,
  };
}

/** deleteOptionsBody is the `DeleteOptions` JSON body of a delete or deleteCollection. */
export function deleteOptionsBody(options: DeleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.gracePeriodSeconds !== undefined)
    body.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.preconditions !== undefined) body.preconditions = options.preconditions;
  if (options.propagationPolicy !== undefined) body.propagationPolicy = options.propagationPolicy;
  if (options.orphanDependents !== undefined) body.orphanDependents = options.orphanDependents;
  if (options.dryRun !== undefined) body.dryRun = ['All'];
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential !== undefined) {
    body.ignoreStoreReadErrorWithClusterBreakingPotential =
      options.ignoreStoreReadErrorWithClusterBreakingPotential;
  }
  return body;
}

/** logParams are the query keys of {@link LogOptions}. */
export function logParams(options: LogOptions): Params {
  return {
    container: options.container || undefined,
    follow: options.follow || undefined,
    previous: options.previous || undefined,
    sinceSeconds: options.sinceSeconds,
    sinceTime: options.sinceTime,
    timestamps: options.timestamps || undefined,
    tailLines: options.tailLines,
    limitBytes: options.limitBytes,
    insecureSkipTLSVerifyBackend: options.insecureSkipTLSVerifyBackend || undefined,
    stream: options.stream,
  };
}
