import { KubeError } from '@k/config/errors';
import { TransportError } from '../errors.js';

/**
 * credentialsError is what fails a request whose provider could not supply credentials: the
 * provider's own `KubeError` (e.g. an exec plugin error) or abort reason as it is, anything else
 * wrapped as `ERR_TRANSPORT_CREDENTIALS` naming the provider's kind.
 */
export function credentialsError(kind: string, error: unknown): Error {
  if (KubeError.isInstance(error)) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new TransportError(
    'ERR_TRANSPORT_CREDENTIALS',
    `getting credentials from the "${kind}" credential provider: ${reason}`,
    { cause: error },
  );
}
