import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import { requestThrough } from '../transport/undici-parts.js';
import {
  expectDuration,
  expectOptionalSignal,
  expectOptionalString,
  expectRecord,
  expectString,
  invalidArgument,
  isRecord,
} from '../checks/argument-checks.js';
import { timerDelay } from '../checks/timer-delay.js';
import { linkSignals } from '../signals/link-signals.js';
import { OidcError } from '../errors.js';

/** RefreshIdTokenOptions describe one refresh at an OpenID provider. */
export interface RefreshIdTokenOptions {
  issuer: string;
  clientId: string;
  clientSecret?: string | undefined;
  refreshToken: string;
  /** dispatcher sends the requests (it carries the IdP's CA and proxy settings). */
  dispatcher: Dispatcher;
  /**
   * timeoutMs bounds each request (default 30 000); 0, and anything longer than a Node timer
   * holds (2^31-1 ms, ~24.8 days), means no timeout.
   */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** RefreshedTokens is what the token endpoint returned. */
export interface RefreshedTokens {
  idToken: string;
  /** refreshToken is set when the server returned one (it may equal the old one). */
  refreshToken?: string | undefined;
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * discoverTokenEndpoint reads `token_endpoint` (and the client authentication methods) from
 * `<issuer without trailing "/">/.well-known/openid-configuration`, as client-go does on every
 * refresh. Throws `ERR_TRANSPORT_OIDC_DISCOVERY` with client-go's messages (`failed to query metadata
 * endpoint <status>: "<first 80 bytes>..."`, `failed to decode provider discovery object`,
 * `discovery object doesn't contain a token_endpoint`).
 */
export async function discoverTokenEndpoint(
  options: Pick<RefreshIdTokenOptions, 'issuer' | 'dispatcher' | 'timeoutMs' | 'signal'>,
): Promise<{ tokenEndpoint: string; authMethods: string[] }> {
  checkRequestOptions(options, 'discoverTokenEndpoint');
  const issuer = options.issuer;
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const fail = (message: string, status?: number, cause?: unknown): never => {
    throw new OidcError('ERR_TRANSPORT_OIDC_DISCOVERY', `oidc issuer ${issuer}: ${message}`, {
      issuer,
      ...(status === undefined ? {} : { status }),
      cause,
    });
  };
  let response;
  try {
    response = await send(url, { method: 'GET', headers: { accept: 'application/json' } }, options);
  } catch (error) {
    return fail(`failed to query metadata endpoint: ${describe(error)}`, undefined, error);
  }
  if (response.status !== 200) {
    const head = response.body.subarray(0, 80).toString('utf8');
    return fail(
      `failed to query metadata endpoint ${statusText(response.status)}: ${JSON.stringify(head)}${response.body.length > 80 ? '...' : ''}`,
      response.status,
    );
  }
  let document: unknown;
  try {
    document = JSON.parse(response.body.toString('utf8'));
  } catch (error) {
    return fail(`failed to decode provider discovery object: ${describe(error)}`, 200, error);
  }
  const tokenEndpoint = (document as { token_endpoint?: unknown } | null)?.token_endpoint;
  if (typeof tokenEndpoint !== 'string' || tokenEndpoint === '') {
    return fail("discovery object doesn't contain a token_endpoint", 200);
  }
  const methods = (document as { token_endpoint_auth_methods_supported?: unknown })
    .token_endpoint_auth_methods_supported;
  const authMethods = Array.isArray(methods)
    ? methods.filter((method): method is string => typeof method === 'string')
    : [];
  return { tokenEndpoint, authMethods };
}

/**
 * refreshIdToken exchanges a refresh token for a new id-token: discovery, then an OAuth 2.0
 * `grant_type=refresh_token` request to the token endpoint with the client id and secret. Like
 * golang.org/x/oauth2's auto-detection, the client authenticates with HTTP Basic first and, if
 * that is refused, with `client_id`/`client_secret` in the form (form first when discovery lists
 * only `client_secret_post`). Throws `ERR_TRANSPORT_OIDC_DISCOVERY` or `ERR_TRANSPORT_OIDC_REFRESH` (`failed to
 * refresh token: oauth2: "<error>" "<description>"`; client-go's message when the response has no
 * `id_token`). No message contains a token or the secret, nor the response body.
 */
export async function refreshIdToken(options: RefreshIdTokenOptions): Promise<RefreshedTokens> {
  const where = 'refreshIdToken';
  checkRequestOptions(options, where);
  expectString(options.clientId, where, 'options.clientId');
  expectOptionalString(options.clientSecret, where, 'options.clientSecret');
  expectString(options.refreshToken, where, 'options.refreshToken');
  const issuer = options.issuer;
  const fail = (message: string, status?: number, cause?: unknown): never => {
    throw new OidcError('ERR_TRANSPORT_OIDC_REFRESH', `oidc issuer ${issuer}: ${message}`, {
      issuer,
      ...(status === undefined ? {} : { status }),
      cause,
    });
  };
  const { tokenEndpoint, authMethods } = await discoverTokenEndpoint(options);
  const styles: ('header' | 'params')[] =
    authMethods.includes('client_secret_post') && !authMethods.includes('client_secret_basic')
      ? ['params', 'header']
      : ['header', 'params'];
  let lastError: OidcError | undefined;
  for (const style of styles) {
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: options.refreshToken,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (style === 'header') {
      const user = encodeURIComponent(options.clientId).replace(/%20/g, '+');
      const password = encodeURIComponent(options.clientSecret ?? '').replace(/%20/g, '+');
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    } else {
      form.set('client_id', options.clientId);
      if (options.clientSecret) form.set('client_secret', options.clientSecret);
    }
    let response;
    try {
      response = await send(
        tokenEndpoint,
        { method: 'POST', headers, body: form.toString() },
        options,
      );
    } catch (error) {
      return fail(`failed to refresh token: ${describe(error)}`, undefined, error);
    }
    const fields = decodeTokenResponse(response.body, response.contentType);
    if (response.status < 200 || response.status > 299) {
      const code = typeof fields?.error === 'string' ? fields.error : '';
      const description =
        typeof fields?.error_description === 'string' ? fields.error_description : '';
      const detail = code
        ? `oauth2: ${JSON.stringify(code)}${description ? ` ${JSON.stringify(description)}` : ''}`
        : `oauth2: cannot fetch token: ${statusText(response.status)}`;
      lastError = new OidcError(
        'ERR_TRANSPORT_OIDC_REFRESH',
        `oidc issuer ${issuer}: failed to refresh token: ${detail}`,
        { issuer, status: response.status },
      );
      // Only a refused client authentication is worth the other style.
      if (response.status === 400 || response.status === 401) continue;
      throw lastError;
    }
    if (!fields) return fail('failed to refresh token: oauth2: cannot parse json', response.status);
    if (typeof fields.access_token !== 'string' || fields.access_token === '') {
      return fail(
        'failed to refresh token: oauth2: server response missing access_token',
        response.status,
      );
    }
    const idToken = fields.id_token;
    if (typeof idToken !== 'string' || idToken === '') {
      return fail(
        `token response did not contain an id_token, either the scope "openid" wasn't requested upon login, or the provider doesn't support id_tokens as part of the refresh response`,
        response.status,
      );
    }
    const refreshed: RefreshedTokens = { idToken };
    if (typeof fields.refresh_token === 'string' && fields.refresh_token !== '') {
      refreshed.refreshToken = fields.refresh_token;
    }
    return refreshed;
  }
  throw lastError!;
}

interface SentResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

async function send(
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  options: Pick<RefreshIdTokenOptions, 'dispatcher' | 'timeoutMs' | 'signal'>,
): Promise<SentResponse> {
  const deadline = linkSignals([options.signal], {
    timeoutMs: timerDelay(options.timeoutMs ?? 30_000),
  });
  try {
    const response = await requestThrough(options.dispatcher, url, {
      method: init.method,
      headers: init.headers,
      ...(init.body === undefined ? {} : { body: init.body }),
      signal: deadline.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.body.destroy();
        throw new Error(
          `response from ${new URL(url).origin} is larger than ${MAX_BODY_BYTES} bytes`,
        );
      }
      chunks.push(chunk);
    }
    const contentType = response.headers['content-type'];
    return {
      status: response.statusCode,
      contentType: (Array.isArray(contentType) ? contentType[0] : contentType) ?? '',
      body: Buffer.concat(chunks),
    };
  } finally {
    deadline.dispose();
  }
}

function decodeTokenResponse(
  body: Buffer,
  contentType: string,
): Record<string, unknown> | undefined {
  const text = body.toString('utf8');
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === 'application/x-www-form-urlencoded' || mediaType === 'text/plain') {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function statusText(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? ''}`.trim();
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** checkRequestOptions checks what discovery and refresh have in common. */
function checkRequestOptions(options: unknown, where: string): void {
  expectRecord(options, where, 'options', 'an object ({ issuer, dispatcher, … })');
  expectString(options.issuer, where, 'options.issuer');
  if (!(isRecord(options.dispatcher) && typeof options.dispatcher.dispatch === 'function')) {
    throw invalidArgument(
      where,
      'options.dispatcher',
      'an undici Dispatcher (e.g. createIdentityProviderDispatcher(issuer))',
      options.dispatcher,
    );
  }
  expectDuration(options.timeoutMs, where, 'options.timeoutMs', 0);
  expectOptionalSignal(options.signal, where, 'options.signal');
}
