import { controlPlane } from '@k/testenv/vitest';
import { describe, expect, it } from 'vitest';
import { ConnectionPools } from '../src/connection.js';
import {
  createTransport,
  type ClientCertificate,
  type CredentialProvider,
  type Credentials,
} from '../src/index.js';
import { resolvedContext, sendJson, whoAmI } from './support/cluster.js';

/** A provider that hands out client certificates the way an exec plugin does, and renews them. */
class RenewingCertificateProvider implements CredentialProvider {
  readonly kind = 'renewing-certificate';
  current: ClientCertificate;

  constructor(initial: ClientCertificate) {
    this.current = initial;
  }

  getCredentials(): Promise<Credentials> {
    return Promise.resolve({ clientCertificate: this.current });
  }
}

describe('client certificates from a credential provider (the exec hook), against the real API server', () => {
  it('presents the certificate on new connections and switches when it is renewed', async () => {
    const { users } = controlPlane();
    const admin = await resolvedContext('admin');
    const provider = new RenewingCertificateProvider({
      certificate: users.admin.certPem,
      key: users.admin.keyPem,
    });
    const pools = new ConnectionPools();
    const transport = createTransport(
      {
        ...admin,
        // No static certificate: only the provider's.
        tls: { caData: admin.tls.caData, insecure: false },
        auth: {
          kind: 'auth-provider',
          name: 'renewing-certificate',
          config: new Map(),
          userName: 'p',
        },
      },
      {
        connectionPools: pools,
        credentialProviderFactories: [{ kind: 'renewing-certificate', create: () => provider }],
      },
    );
    try {
      expect((await whoAmI(transport)).groups).toContain('system:masters');
      expect(pools.size).toBe(2); // the certificate-less base pool and the admin certificate's

      provider.current = { certificate: users.alice.certPem, key: users.alice.keyPem };
      expect((await whoAmI(transport)).username).toBe('alice');
      expect((await sendJson(transport, 'GET', '/api/v1/namespaces/kube-system')).status).toBe(403);
      expect(pools.size).toBe(2); // the admin certificate's pool was released and closed
    } finally {
      await transport.close();
    }
    expect(pools.size).toBe(0);
  });
});
