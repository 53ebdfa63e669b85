import type { RequestBuilder } from '@k/rest';
import type { OptionRules } from '../validation/check-arguments.js';
import type { KubernetesObject } from './object-types.js';
import type { GetOptions, RequestOptions } from './request-options.js';
import type { ResourceArguments } from './resource-arguments.js';

/**
 * SubresourceTarget is what the pod stream calls (logs, exec, attach, copy, port-forward) need of
 * the `ResourceClient` they belong to, without reaching into its private state: its argument
 * checks, its verb check, and requests aimed at one object's subresource in its namespace.
 * Internal; made by the client for each call.
 */
export interface SubresourceTarget {
  readonly arguments: ResourceArguments;
  /** check throws `ERR_CLIENTSET_VERB_NOT_SUPPORTED` when the descriptor does not list `verb` on `subresource`. */
  check(verb: string, subresource: string): void;
  /** get starts a GET of `name`'s `subresource` carrying the request options (signal, timeout, retries). */
  get(name: string, subresource: string, options: RequestOptions): RequestBuilder;
  /** read reads the object `name` itself (a pod, for the containers of its log). */
  read(name: string, options: GetOptions): Promise<KubernetesObject>;
}

/**
 * checkStreamCall checks a pod stream call before anything is sent: the descriptor lists `get`
 * on `subresource`, `name` is a name and `options` follow `rules` (the stream options unless
 * given); `call` names the call in the error.
 */
export function checkStreamCall(
  target: SubresourceTarget,
  subresource: string,
  call: string,
  name: unknown,
  options: unknown,
  rules?: OptionRules,
): void {
  target.check('get', subresource);
  target.arguments.name(name, call);
  target.arguments.streamOptions(options, call, rules);
}
