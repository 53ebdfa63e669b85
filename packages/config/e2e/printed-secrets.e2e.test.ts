import { MODULE_KINDS, runNodeProgram } from '@k/test-utils';
import { describe, expect, it } from 'vitest';

// console.log, console.error and JSON.stringify in a user's own program, against the built
// package: what @k/config returns prints without credentials, and still holds them. Not
// covered, because Node.js turns custom inspection off there and shows the data as it is:
// console.dir, and the report of an uncaught exception (an error carrying a config that
// crashes the process); programs log errors with console.error, as here.

const base64 = (text: string) => Buffer.from(text).toString('base64');
const SECRETS = [
  'token-sekrit-1',
  'password-sekrit-2',
  'exec-env-sekrit-3',
  'client-secret-sekrit-4',
  'refresh-token-sekrit-5',
  'proxy-sekrit-6',
  base64('client-key-sekrit-7'),
];

const KUBECONFIG = `apiVersion: v1
kind: Config
current-context: token
clusters:
- name: c
  cluster:
    server: https://10.0.0.1:6443
    proxy-url: http://user:proxy-sekrit-6@proxy.example:3128
users:
- name: token
  user:
    token: token-sekrit-1
    client-key-data: ${base64('client-key-sekrit-7')}
- name: basic
  user:
    username: bob
    password: password-sekrit-2
- name: exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: plugin
      env: [{name: SECRET, value: exec-env-sekrit-3}]
      interactiveMode: Never
- name: oidc
  user:
    auth-provider:
      name: oidc
      config: {client-id: k, client-secret: client-secret-sekrit-4, refresh-token: refresh-token-sekrit-5}
contexts:
- {name: token, context: {cluster: c, user: token}}
- {name: basic, context: {cluster: c, user: basic}}
- {name: exec, context: {cluster: c, user: exec}}
- {name: oidc, context: {cluster: c, user: oidc}}
`;

describe.each(MODULE_KINDS)('printing configurations in a program (%s)', (kind) => {
  it('console.log, console.error, JSON.stringify and thrown errors show no secret', async () => {
    const result = await runNodeProgram(
      {
        imports: { '@k/config': ['loadKubeconfig', 'resolveConfig'] },
        files: { config: KUBECONFIG },
        main: `
          const loaded = await loadKubeconfig({ explicitPath: 'config' });
          console.log(loaded);
          console.log('%o', loaded.config);
          console.info(loaded.files[0]);
          for (const context of ['token', 'basic', 'exec', 'oidc']) {
            const resolved = resolveConfig(loaded, { context });
            console.log(resolved, resolved.auth, resolved.tls);
            console.log(JSON.stringify(resolved));
            console.error(new Error('request failed', { cause: resolved }));
          }
          console.log(JSON.stringify(loaded));
          // The values themselves are there for code to use.
          const token = resolveConfig(loaded).auth.token;
          console.log(token === 'token-sekrit-1' ? 'real token kept' : 'token lost');
          try {
            throw Object.assign(new Error('giving up'), { config: loaded.config });
          } catch (error) {
            console.error(error);
            process.exitCode = 1;
          }`,
      },
      kind,
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('giving up');
    expect(result.stdout).toContain('real token kept');
    expect(result.stdout).toContain("token: 'REDACTED'");
    expect(result.stdout).toContain("'client-secret' => 'REDACTED'");
    for (const secret of SECRETS) {
      expect(result.stdout, secret).not.toContain(secret);
      expect(result.stderr, secret).not.toContain(secret);
    }
  });
});
