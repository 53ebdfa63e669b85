import { loadKubeconfig, resolveConfig, type ResolvedConfig } from '@k/config';
import { controlPlane } from '@k/testenv/vitest';
import type { Transport } from '../../src/index.js';

/** resolvedContext resolves one context (`admin`, `alice`, `tester`) of the run's control plane. */
export async function resolvedContext(
  context: 'admin' | 'alice' | 'tester',
): Promise<ResolvedConfig> {
  const loaded = await loadKubeconfig({ explicitPath: controlPlane().kubeconfigPath });
  return resolveConfig(loaded, { context });
}

/** JsonResponse is a response's status and parsed body. */
export interface JsonResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** sendJson sends one request through `transport` and parses the JSON response. */
export async function sendJson<T = Record<string, unknown>>(
  transport: Transport,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonResponse<T>> {
  const response = await transport.request({
    method,
    path: `${transport.server.basePath}${path}`,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as T };
}

/** UserInfo is what the API server says about the caller. */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** whoAmI posts a SelfSubjectReview and returns the user the server authenticated. */
export async function whoAmI(transport: Transport): Promise<UserInfo> {
  const response = await sendJson<{ status?: { userInfo?: UserInfo } }>(
    transport,
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  );
  if (response.status !== 201) {
    throw new Error(
      `selfsubjectreview answered ${response.status}: ${JSON.stringify(response.body)}`,
    );
  }
  return response.body.status?.userInfo ?? {};
}
