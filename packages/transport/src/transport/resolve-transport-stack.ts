import type { Dispatcher } from 'undici';
import { invalidArgument, isRecord } from '../checks/argument-checks.js';
import { TransportError } from '../errors.js';
import {
  TRANSPORT_BUILTIN_INTERCEPTOR_NAMES,
  TRANSPORT_INTERCEPTOR_POSITIONS,
  TRANSPORT_INTERCEPTOR_PRIORITIES,
  type TransportBuiltinInterceptorName,
  type TransportInterceptor,
  type TransportInterceptorPosition,
} from './transport-interceptor.js';

type ComposeInterceptor = Dispatcher.DispatcherComposeInterceptor;

/**
 * TransportStackEntry is one layer of a transport's resolved stack, outermost first, as
 * `transport.stack` lists it: a built-in interceptor (`builtin: true`; `pool` is the bottom, the
 * connection pool the stack is composed over) or a user interceptor with its position.
 */
export interface TransportStackEntry {
  readonly name: string;
  readonly builtin: boolean;
  /** position is where a user interceptor was placed; undefined for built-ins. */
  readonly position: TransportInterceptorPosition | undefined;
}

/**
 * TransportStackLayer is one line of the layout `createTransport` writes down: a built-in layer
 * (`pool` has no interceptor: it is what the stack is composed over) or a named position where
 * the user interceptors of that position go. `undefined` stands for a built-in that is absent.
 */
export type TransportStackLayer =
  | { readonly name: TransportBuiltinInterceptorName; readonly interceptor?: ComposeInterceptor }
  | { readonly position: TransportInterceptorPosition };

/** ResolvedTransportStack is a layout with the user interceptors in place. */
export interface ResolvedTransportStack {
  /** entries describe every layer, outermost first (frozen). */
  readonly entries: readonly TransportStackEntry[];
  /** interceptors are the ones to compose, outermost first. */
  readonly interceptors: ComposeInterceptor[];
}

const PRIORITY_RANK: Readonly<Record<string, number>> = { high: 0, normal: 1, low: 2 };

/**
 * resolveTransportStack puts `interceptors` into `layout` at their positions: within one
 * position by priority (`high` outermost), then in the order given. The interceptors must have
 * passed {@link checkTransportInterceptors}. With no user interceptors the result holds exactly
 * the layout's built-in interceptors: nothing is wrapped or added on the request path.
 */
export function resolveTransportStack(
  layout: readonly (TransportStackLayer | undefined)[],
  interceptors: readonly TransportInterceptor[],
): ResolvedTransportStack {
  const entries: TransportStackEntry[] = [];
  const composed: ComposeInterceptor[] = [];
  const placed = new Set<TransportInterceptorPosition>();
  for (const layer of layout) {
    if (!layer) continue;
    if ('name' in layer) {
      entries.push(Object.freeze({ name: layer.name, builtin: true, position: undefined }));
      if (layer.interceptor) composed.push(layer.interceptor);
      continue;
    }
    placed.add(layer.position);
    const here = interceptors
      .map((interceptor, index) => ({ interceptor, index }))
      .filter(({ interceptor }) => interceptor.position === layer.position)
      .sort(
        (a, b) =>
          (PRIORITY_RANK[a.interceptor.priority ?? 'normal'] ?? 1) -
            (PRIORITY_RANK[b.interceptor.priority ?? 'normal'] ?? 1) || a.index - b.index,
      );
    for (const { interceptor } of here) {
      entries.push(
        Object.freeze({ name: interceptor.name, builtin: false, position: interceptor.position }),
      );
      composed.push(interceptor.interceptor);
    }
  }
  for (const interceptor of interceptors) {
    // A layout without one of the positions is a bug here, not the caller's mistake.
    if (!placed.has(interceptor.position)) {
      throw new Error(`the transport stack layout has no position "${interceptor.position}"`);
    }
  }
  return { entries: Object.freeze(entries), interceptors: composed };
}

/**
 * checkTransportInterceptors checks `options.interceptors` before anything is built: an array
 * of {@link TransportInterceptor}s (else `ERR_TRANSPORT_INVALID_ARGUMENT` naming the field) whose
 * names are unique and not those of built-in layers (else `ERR_TRANSPORT_INTERCEPTOR_DUPLICATE`,
 * smithy's rule: a name is added once).
 */
export function checkTransportInterceptors(value: unknown, where: string, what: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    throw invalidArgument(where, what, 'an array of TransportInterceptors or undefined', value);
  }
  const seen = new Set<string>();
  value.forEach((item: unknown, index) => {
    const at = `${what}[${index}]`;
    if (!isRecord(item)) {
      throw invalidArgument(
        where,
        at,
        'a TransportInterceptor ({ name, position, interceptor })',
        item,
      );
    }
    if (typeof item.name !== 'string' || item.name === '') {
      throw invalidArgument(where, `${at}.name`, 'a non-empty string', item.name);
    }
    if (!(TRANSPORT_INTERCEPTOR_POSITIONS as readonly unknown[]).includes(item.position)) {
      throw invalidArgument(
        where,
        `${at}.position`,
        `one of ${TRANSPORT_INTERCEPTOR_POSITIONS.map((name) => `'${name}'`).join(', ')}`,
        item.position,
      );
    }
    if (typeof item.interceptor !== 'function') {
      throw invalidArgument(
        where,
        `${at}.interceptor`,
        'an undici compose interceptor (dispatch => dispatch)',
        item.interceptor,
      );
    }
    if (
      item.priority !== undefined &&
      !(TRANSPORT_INTERCEPTOR_PRIORITIES as readonly unknown[]).includes(item.priority)
    ) {
      throw invalidArgument(
        where,
        `${at}.priority`,
        `one of ${TRANSPORT_INTERCEPTOR_PRIORITIES.map((name) => `'${name}'`).join(', ')} or undefined`,
        item.priority,
      );
    }
    const name = item.name;
    if ((TRANSPORT_BUILTIN_INTERCEPTOR_NAMES as readonly string[]).includes(name)) {
      throw new TransportError(
        'ERR_TRANSPORT_INTERCEPTOR_DUPLICATE',
        `transport interceptor name "${name}" is the name of a built-in interceptor`,
      );
    }
    if (seen.has(name)) {
      throw new TransportError(
        'ERR_TRANSPORT_INTERCEPTOR_DUPLICATE',
        `transport interceptor name "${name}" is used twice`,
      );
    }
    seen.add(name);
  });
}
