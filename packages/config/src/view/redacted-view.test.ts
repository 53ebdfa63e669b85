import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inferConfig } from '../infer-config.js';
import { loadInClusterConfig } from '../in-cluster/load-in-cluster-config.js';
import { loadKubeconfig } from '../load/load-kubeconfig.js';
import { mergeKubeconfigs } from '../load/merge-kubeconfigs.js';
import { emptyKubeconfig } from '../model/kubeconfig.js';
import { parseKubeconfig } from '../model/parse-kubeconfig.js';
import { resolveConfig } from '../resolve/resolve-config.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import { modifyKubeconfig, updateAuthProviderConfig } from '../write/modify-kubeconfig.js';
import { flattenKubeconfig } from './flatten-kubeconfig.js';
import { minifyKubeconfig } from './minify-kubeconfig.js';

// Printing a configuration (util.inspect, console.log, JSON.stringify, an error that carries
// one) must never show a credential, while code reads and writes the real values.

const base64 = (text: string) => Buffer.from(text).toString('base64');

/** Every secret of the file below; none may appear in printed output. */
const SECRETS = [
  'token-sekrit-1',
  'password-sekrit-2',
  'exec-env-sekrit-3',
  'client-secret-sekrit-4',
  'id-token-sekrit-5',
  'refresh-token-sekrit-6',
  'proxy-sekrit-7',
  'server-sekrit-8',
  base64('client-key-sekrit-9'),
  base64('client-certificate-10'),
  base64('certificate-authority-11'),
];

const KUBECONFIG = `apiVersion: v1
kind: Config
current-context: token
clusters:
- name: c
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: ${base64('certificate-authority-11')}
    proxy-url: http://proxy-user:proxy-sekrit-7@proxy.example:3128
- name: userinfo
  cluster:
    server: https://admin:server-sekrit-8@10.0.0.2
users:
- name: token
  user:
    token: token-sekrit-1
    client-key-data: ${base64('client-key-sekrit-9')}
    client-certificate-data: ${base64('client-certificate-10')}
- name: basic
  user:
    username: bob
    password: password-sekrit-2
- name: exec
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: plugin
      args: [get-token]
      env:
      - name: PLUGIN_SECRET
        value: exec-env-sekrit-3
      interactiveMode: Never
- name: oidc
  user:
    auth-provider:
      name: oidc
      config:
        client-id: kubernetes
        client-secret: client-secret-sekrit-4
        id-token: id-token-sekrit-5
        refresh-token: refresh-token-sekrit-6
        idp-issuer-url: https://issuer.example
contexts:
- {name: token, context: {cluster: c, user: token}}
- {name: basic, context: {cluster: c, user: basic}}
- {name: exec, context: {cluster: c, user: exec}}
- {name: oidc, context: {cluster: c, user: oidc}}
- {name: userinfo, context: {cluster: userinfo, user: token}}
`;

let files: TempFiles;
let path: string;
beforeEach(() => {
  files = createTempFiles();
  path = files.write('config', KUBECONFIG);
});
afterEach(() => files.cleanup());

const load = () => loadKubeconfig({ explicitPath: path, env: {} });

function expectNoSecret(printed: string, what: string) {
  for (const secret of SECRETS) expect(printed, `${what} shows ${secret}`).not.toContain(secret);
  expect(printed, `${what} shows raw bytes`).not.toMatch(/Uint8Array\(\d+\) \[\s*\d/);
}

const print = (value: unknown) => inspect(value, { depth: Infinity });

describe('printed configurations hide their secrets', () => {
  it('util.inspect and JSON.stringify of a loaded kubeconfig', async () => {
    const loaded = await load();
    for (const [what, printed] of [
      ['inspect(loaded)', print(loaded)],
      ['inspect(config)', print(loaded.config)],
      ['inspect(files)', print(loaded.files)],
      ['JSON(loaded)', JSON.stringify(loaded)],
      ['JSON(config)', JSON.stringify(loaded.config)],
      ['JSON(file)', JSON.stringify(loaded.files[0])],
    ] as const) {
      expectNoSecret(printed, what);
    }
    const printed = print(loaded.config);
    expect(printed).toContain("token: 'REDACTED'");
    expect(printed).toContain("password: 'REDACTED'");
    expect(printed).toContain("clientKeyData: 'DATA+OMITTED'");
    expect(printed).toContain("certificateAuthorityData: 'DATA+OMITTED'");
    expect(printed).toContain("proxyUrl: 'http://proxy-user:REDACTED@proxy.example:3128'");
    expect(printed).toContain("'client-id' => 'kubernetes'"); // what is not secret stays visible
    expect(printed).toContain("username: 'bob'");
    expect(JSON.parse(JSON.stringify(loaded.config))).toMatchObject({
      currentContext: 'token',
      users: { token: { token: 'REDACTED', clientKeyData: 'DATA+OMITTED' } },
    });
  });

  it('util.inspect and JSON.stringify of every part that holds a credential', async () => {
    const { config } = await load();
    const oidc = config.users.get('oidc')!;
    const exec = config.users.get('exec')!.exec!;
    for (const [what, value] of [
      ['token user', config.users.get('token')],
      ['basic user', config.users.get('basic')],
      ['cluster', config.clusters.get('c')],
      ['users map', config.users],
      ['auth-provider', oidc.authProvider],
      ['auth-provider config', oidc.authProvider?.config],
      ['exec', exec],
      ['exec env', exec.env],
      ['exec env entry', exec.env?.[0]],
      ['client key bytes', config.users.get('token')?.clientKeyData],
    ] as const) {
      expectNoSecret(print(value), `inspect(${what})`);
    }
    for (const value of [config.users.get('token'), config.clusters.get('c'), oidc.authProvider]) {
      expectNoSecret(JSON.stringify(value), 'JSON.stringify');
    }
  });

  it('util.inspect and JSON.stringify of a resolved configuration and its parts', async () => {
    const loaded = await load();
    for (const context of ['token', 'basic', 'exec', 'oidc', 'userinfo']) {
      const resolved = resolveConfig(loaded, { context });
      expectNoSecret(print(resolved), `inspect(${context})`);
      expectNoSecret(JSON.stringify(resolved), `JSON(${context})`);
      expectNoSecret(print(resolved.auth), `inspect(${context}.auth)`);
      expectNoSecret(print(resolved.tls), `inspect(${context}.tls)`);
      expectNoSecret(JSON.stringify(resolved.auth), `JSON(${context}.auth)`);
      expectNoSecret(JSON.stringify(resolved.tls), `JSON(${context}.tls)`);
    }
    const resolved = resolveConfig(loaded, { context: 'userinfo' });
    expect(print(resolved)).toContain("server: 'https://admin:REDACTED@10.0.0.2'");
    expect(print(resolveConfig(loaded, { token: 'override-sekrit' }))).not.toContain(
      'override-sekrit',
    );
  });

  it('what the other loaders and transformations return', async () => {
    const loaded = await load();
    const tokenFile = files.write('sa/token', 'in-cluster-sekrit');
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const inCluster = await loadInClusterConfig({ env, tokenFile });
    const inferred = await inferConfig({
      env: { ...env, KUBECONFIG: files.path('none') },
      inCluster: { tokenFile },
    });
    for (const [what, value] of [
      ['parseKubeconfig', parseKubeconfig(KUBECONFIG, 'x')],
      ['mergeKubeconfigs', mergeKubeconfigs(loaded.files)],
      ['minifyKubeconfig', minifyKubeconfig(loaded.config, 'oidc')],
      ['flattenKubeconfig', await flattenKubeconfig(loaded.config, loaded.origins)],
      ['inferConfig', await inferConfig({ explicitPath: path, env: {} })],
      ['loadInClusterConfig', inCluster],
      ['inferConfig in a pod', inferred],
    ] as const) {
      expectNoSecret(print(value), `inspect(${what})`);
      expectNoSecret(JSON.stringify(value), `JSON(${what})`);
      expect(print(value)).not.toContain('in-cluster-sekrit');
    }
    const result = await modifyKubeconfig(loaded, (config) => {
      config.currentContext = 'basic';
    });
    expectNoSecret(print(result), 'inspect(modifyKubeconfig result)');
    expect(print(emptyKubeconfig())).toContain('currentContext');
  });

  it('errors that carry a configuration as a property or a cause', async () => {
    const loaded = await load();
    const resolved = resolveConfig(loaded, { context: 'oidc' });
    const withCause = new Error('request failed', { cause: resolved });
    const withProperty = Object.assign(new Error('load failed'), { config: loaded.config });
    expectNoSecret(print(withCause), 'an error with a cause');
    expectNoSecret(print(withProperty), 'an error with a property');
    expectNoSecret(print({ nested: [{ loaded }] }), 'a nested value');
  });
});

describe('hiding secrets changes nothing that code reads or writes', () => {
  it('keeps every field readable with its real value, and the same own keys', async () => {
    const loaded = await load();
    const user = loaded.config.users.get('token')!;
    expect(user.token).toBe('token-sekrit-1');
    expect(Buffer.from(user.clientKeyData!).toString()).toBe('client-key-sekrit-9');
    expect(Object.keys(user)).toEqual(['clientCertificateData', 'clientKeyData', 'token']);
    expect(Object.keys(loaded.config)).toEqual([
      'preferences',
      'clusters',
      'users',
      'contexts',
      'currentContext',
      'extensions',
    ]);
    const resolved = resolveConfig(loaded, { context: 'exec' });
    expect(resolved.auth).toMatchObject({
      kind: 'exec',
      exec: { env: [{ name: 'PLUGIN_SECRET', value: 'exec-env-sekrit-3' }] },
    });
    expect(resolveConfig(loaded, { context: 'oidc' }).auth).toMatchObject({
      config: new Map([
        ['client-id', 'kubernetes'],
        ['client-secret', 'client-secret-sekrit-4'],
        ['id-token', 'id-token-sekrit-5'],
        ['refresh-token', 'refresh-token-sekrit-6'],
        ['idp-issuer-url', 'https://issuer.example'],
      ]),
    });
  });

  it('copies with structuredClone and spread keep the real values', async () => {
    const loaded = await load();
    const resolved = resolveConfig(loaded, { context: 'basic' });
    const cloned = structuredClone(resolved);
    expect(cloned.auth).toEqual({ kind: 'basic', username: 'bob', password: 'password-sekrit-2' });
    expect(structuredClone(loaded.config).users.get('token')?.token).toBe('token-sekrit-1');
    expect({ ...resolved }.auth).toEqual(resolved.auth);
    expect(resolved).toEqual(cloned);
  });

  it('writes the real values back to the file', async () => {
    const loaded = await load();
    await updateAuthProviderConfig(loaded, 'oidc', { 'id-token': 'new-id-token-sekrit' });
    const written = readFileSync(path, 'utf8');
    expect(written).toContain('id-token: new-id-token-sekrit');
    for (const secret of SECRETS.filter((secret) => secret !== 'id-token-sekrit-5')) {
      expect(written).toContain(secret);
    }
    const rewritten = await modifyKubeconfig(await load(), (config) => {
      config.users.set('copy', { ...config.users.get('token')! });
    });
    expect(rewritten.writtenFiles).toEqual([path]);
    expect(readFileSync(path, 'utf8')).toMatch(
      /name: copy\n\s+user:\n(?:.*\n)*?\s+token: token-sekrit-1/,
    );
  });
});
