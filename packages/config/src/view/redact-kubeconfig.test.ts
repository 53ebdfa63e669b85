import { describe, expect, it } from 'vitest';
import { parseKubeconfig } from '../model/parse-kubeconfig.js';
import { encodeKubeconfig } from './encode-kubeconfig.js';
import { redactKubeconfig } from './redact-kubeconfig.js';

describe('redactKubeconfig', () => {
  const { config } = parseKubeconfig(`
clusters:
- {name: c, cluster: {server: s, certificate-authority-data: aGVsbG8=}}
users:
- name: u
  user:
    client-certificate-data: aGVsbG8=
    client-key-data: a2V5
    token: secret-token
    username: bob
    password: secret-password
    auth-provider: {name: oidc, config: {id-token: oidc-token}}
    exec: {command: c, apiVersion: client.authentication.k8s.io/v1, env: [{name: S, value: exec-secret}]}
- {name: empty, user: {}}
`);

  it('hides data, tokens and passwords as kubectl does, and only those', () => {
    const encoded = encodeKubeconfig(redactKubeconfig(config));
    const [cluster] = encoded.clusters as [{ cluster: Record<string, unknown> }];
    expect(cluster.cluster['certificate-authority-data']).toBe('DATA+OMITTED');
    const [empty, user] = encoded.users as [{ user: object }, { user: Record<string, unknown> }];
    expect(empty.user).toEqual({});
    expect(user.user).toMatchObject({
      'client-certificate-data': 'DATA+OMITTED',
      'client-key-data': 'DATA+OMITTED',
      token: 'REDACTED',
      username: 'bob',
      password: 'REDACTED',
      // kubectl leaves these visible (verified with kubectl 1.32).
      'auth-provider': { name: 'oidc', config: { 'id-token': 'oidc-token' } },
    });
    expect(user.user.exec).toMatchObject({ env: [{ name: 'S', value: 'exec-secret' }] });
  });

  it('does not change its input', () => {
    redactKubeconfig(config);
    expect(config.users.get('u')?.token).toBe('secret-token');
  });
});
