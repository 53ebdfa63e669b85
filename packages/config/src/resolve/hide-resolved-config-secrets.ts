import {
  defineDataView,
  defineExecViews,
  defineProviderViews,
  defineRedactedView,
  redactData,
  redactExec,
  redactProviderConfig,
  redactSecret,
  redactUrl,
} from '../view/redacted-view.js';
import type { AuthMethod, ResolvedConfig, TlsSettings } from './resolved-config.js';

/**
 * hideResolvedConfigSecrets makes a ResolvedConfig print without its credentials: `util.inspect`
 * and `console.log` of it, its `tls`, its `auth` (and the exec and auth-provider parts inside),
 * and `JSON.stringify` of it, its `tls` and its `auth`, show `REDACTED` for tokens, passwords,
 * exec env values, auth-provider secrets and the passwords of `server` and `proxyUrl`, and
 * `DATA+OMITTED` for certificate and key bytes. Fields keep their real values (the printers are
 * non-enumerable properties), so code reads them, `structuredClone` copies them and spread
 * copies them (without the printers). Changes `config` in place and returns it.
 */
export function hideResolvedConfigSecrets(config: ResolvedConfig): ResolvedConfig {
  defineDataView(config.tls.keyData);
  defineRedactedView(config.tls, redactTls);
  if (config.auth.kind === 'exec') defineExecViews(config.auth.exec);
  if (config.auth.kind === 'auth-provider') defineProviderViews(config.auth);
  else defineRedactedView(config.auth, redactAuth);
  return defineRedactedView(config, (value) => {
    const view: Record<string, unknown> = {
      ...value,
      server: redactUrl(value.server),
      tls: redactTls(value.tls),
      auth: redactAuth(value.auth),
    };
    if ('proxyUrl' in value) view.proxyUrl = redactUrl(value.proxyUrl);
    return view;
  });
}

function redactTls(tls: TlsSettings): unknown {
  const view: Record<string, unknown> = { ...tls };
  for (const key of ['caData', 'certData', 'keyData'] as const) {
    if (key in tls) view[key] = redactData(tls[key]);
  }
  return view;
}

function redactAuth(auth: AuthMethod): unknown {
  switch (auth.kind) {
    case 'token':
      return 'token' in auth ? { ...auth, token: redactSecret(auth.token) } : { ...auth };
    case 'basic':
      return { ...auth, password: redactSecret(auth.password) };
    case 'exec':
      return { ...auth, exec: redactExec(auth.exec) };
    case 'auth-provider':
      return { ...auth, config: redactProviderConfig(auth.config) };
    default:
      return { ...auth };
  }
}
