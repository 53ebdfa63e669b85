import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';

/** KubeRequestCredentials authenticate a request: a client certificate or a bearer token (or none). */
export type KubeRequestCredentials =
  { readonly certPem: string; readonly keyPem: string } | { readonly token: string } | undefined;

/** KubeRequestOptions describe one call to {@link kubeRequest}. */
export interface KubeRequestOptions {
  /** Base URL, `https://127.0.0.1:PORT` (or `http://` for etcd's health endpoint). */
  readonly server: string;
  readonly path: string;
  readonly method?: string;
  /** PEM of the CA that signed the server's certificate; omitted = do not verify (self-signed components). */
  readonly caPem?: string;
  readonly credentials?: KubeRequestCredentials;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Sent as it is with `Content-Type: application/yaml` (instead of `body`). */
  readonly yamlBody?: string;
  /** The User-Agent header (default `k-testenv`), e.g. to find the request in the audit log. */
  readonly userAgent?: string;
  /** Per-request timeout, ms (default 5000). */
  readonly timeoutMs?: number;
}

/** KubeResponse is a response's status and body text. */
export interface KubeResponse {
  readonly status: number;
  readonly body: string;
}

/**
 * kubeRequest sends one HTTP(S) request with node:http(s) and resolves with the status and body text
 * for any status; it rejects only for transport failures (refused, TLS, timeout). It is the tiny
 * client testenv uses for readiness and provisioning, so it has no retries and no dependencies.
 */
export function kubeRequest(options: KubeRequestOptions): Promise<KubeResponse> {
  const url = new URL(options.path, options.server);
  const payload =
    options.yamlBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const credentials = options.credentials;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': options.userAgent ?? 'k-testenv',
  };
  if (payload !== undefined)
    headers['content-type'] =
      options.yamlBody === undefined ? 'application/json' : 'application/yaml';
  if (credentials && 'token' in credentials) headers.authorization = `Bearer ${credentials.token}`;
  return new Promise((resolve, reject) => {
    const common = { method: options.method ?? 'GET', headers, timeout: options.timeoutMs ?? 5000 };
    const request =
      url.protocol === 'http:'
        ? httpRequest(url, common)
        : httpsRequest(url, {
            ...common,
            ca: options.caPem,
            rejectUnauthorized: options.caPem !== undefined,
            ...(credentials && 'certPem' in credentials
              ? { cert: credentials.certPem, key: credentials.keyPem }
              : {}),
            agent: false,
          });
    request.on('timeout', () =>
      request.destroy(new Error(`timed out after ${options.timeoutMs ?? 5000}ms`)),
    );
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.end(payload);
  });
}
