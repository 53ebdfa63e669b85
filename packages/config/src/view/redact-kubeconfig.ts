import { checkKubeconfig } from '../argument-checks.js';

import { hideKubeconfigSecrets } from '../model/hide-kubeconfig-secrets.js';
import type { Kubeconfig } from '../model/kubeconfig.js';
import { DATA_OMITTED } from './redaction-markers.js';

export { DATA_OMITTED, REDACTED } from './redaction-markers.js';

// kubectl stores the bytes whose base64 is the marker, so the marker prints verbatim.
const DATA_OMITTED_BYTES = new Uint8Array(Buffer.from(DATA_OMITTED, 'base64'));

/**
 * redactKubeconfig hides secrets as `kubectl config view` does without `--raw` (client-go's
 * RedactSecrets + ShortenConfig): every non-empty `certificate-authority-data`,
 * `client-certificate-data` and `client-key-data` prints as `DATA+OMITTED`, every non-empty
 * `token` and `password` as `REDACTED`. Like kubectl it leaves `auth-provider` config (which can
 * hold OIDC tokens), `exec.env` and extensions as they are. Returns a new Kubeconfig.
 */
export function redactKubeconfig(config: Kubeconfig): Kubeconfig {
  checkKubeconfig('redactKubeconfig', 'config', config);
  const clusters = new Map(
    [...config.clusters].map(([name, cluster]) => {
      const redacted = { ...cluster };
      if (redacted.certificateAuthorityData?.length)
        redacted.certificateAuthorityData = DATA_OMITTED_BYTES;
      return [name, redacted];
    }),
  );
  const users = new Map(
    [...config.users].map(([name, user]) => {
      const redacted = { ...user };
      if (redacted.clientCertificateData?.length)
        redacted.clientCertificateData = DATA_OMITTED_BYTES;
      if (redacted.clientKeyData?.length) redacted.clientKeyData = DATA_OMITTED_BYTES;
      if (redacted.token) redacted.token = 'REDACTED';
      if (redacted.password) redacted.password = 'REDACTED';
      return [name, redacted];
    }),
  );
  return hideKubeconfigSecrets({ ...config, clusters, users });
}
