import { invalidArgument, isRecord } from '../checks/argument-checks.js';
import type { TransportStackEntry } from './resolve-transport-stack.js';

/**
 * describeTransportStack prints a transport's resolved stack, outermost first, the way a request
 * passes through it: `describeTransportStack(transport)` (or `transport.stack`) gives e.g.
 * `request-id → impersonation → user-agent → auth → compression → request-logger → pool`.
 * Built-in layers and user interceptors appear by name; `transport.stack` has the same as data
 * (with each user interceptor's position).
 */
export function describeTransportStack(
  stack: readonly TransportStackEntry[] | { readonly stack: readonly TransportStackEntry[] },
): string {
  const entries: unknown = Array.isArray(stack) ? stack : isRecord(stack) ? stack.stack : undefined;
  if (
    !Array.isArray(entries) ||
    !entries.every((entry: unknown) => isRecord(entry) && typeof entry.name === 'string')
  ) {
    throw invalidArgument(
      'describeTransportStack',
      'stack',
      'a Transport or its stack (transport.stack)',
      stack,
    );
  }
  return (entries as readonly TransportStackEntry[]).map((entry) => entry.name).join(' → ');
}
