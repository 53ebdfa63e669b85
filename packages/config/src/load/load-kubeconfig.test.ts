import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeconfigError } from '../errors.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import { loadKubeconfig } from './load-kubeconfig.js';

// The fixtures of client-go's loader_test.go (Example_mergingSomeWithConflict and friends).
const alfa = `
apiVersion: v1
kind: Config
clusters:
- name: cow-cluster
  cluster: {server: "http://cow.org:8080"}
users:
- name: red-user
  user: {token: red-token}
contexts:
- name: federal-context
  context: {cluster: cow-cluster, user: red-user, namespace: hammer-ns}
`;
const conflictAlfa = `
clusters:
- name: cow-cluster
  cluster: {server: "http://alfa.org:8080", insecure-skip-tls-verify: true, disable-compression: true}
- name: donkey-cluster
  cluster: {server: "http://donkey.org:8080"}
users:
- name: yellow-user
  user: {token: yellow-token}
current-context: federal-context
`;

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
});
afterEach(() => files.cleanup());

describe('loadKubeconfig', () => {
  it('loads only the explicit file, ignoring KUBECONFIG', async () => {
    const explicitPath = files.write('alfa.yaml', alfa);
    const other = files.write('conflict.yaml', conflictAlfa);
    const loaded = await loadKubeconfig({
      explicitPath,
      env: { KUBECONFIG: other, HOME: files.root },
    });
    expect([...loaded.config.clusters.keys()]).toEqual(['cow-cluster']);
    expect(loaded.config.currentContext).toBe('');
    expect(loaded.files.map((file) => file.path)).toEqual([explicitPath]);
  });

  it('merges with first-wins for whole entries and scalars', async () => {
    const first = files.write('alfa.yaml', alfa);
    const second = files.write('conflict.yaml', conflictAlfa);
    const loaded = await loadKubeconfig({ env: { KUBECONFIG: `${first}:${second}` } });
    const { config } = loaded;
    expect(config.clusters.get('cow-cluster')).toEqual({ server: 'http://cow.org:8080' });
    expect(config.clusters.get('donkey-cluster')).toEqual({ server: 'http://donkey.org:8080' });
    expect([...config.users.keys()]).toEqual(['red-user', 'yellow-user']);
    expect(config.users.get('red-user')?.token).toBe('red-token');
    expect(config.currentContext).toBe('federal-context');
    expect(loaded.origins.clusters.get('cow-cluster')).toBe(first);
    expect(loaded.origins.clusters.get('donkey-cluster')).toBe(second);
  });

  it('takes current-context from the first file that sets it', async () => {
    const first = files.write('a.yaml', 'current-context: from-a\n');
    const second = files.write('b.yaml', 'current-context: from-b\n');
    const loaded = await loadKubeconfig({ env: { KUBECONFIG: `${first}:${second}` } });
    expect(loaded.config.currentContext).toBe('from-a');
  });

  it('unions disjoint files', async () => {
    const paths = [1, 2, 3, 4].map((index) =>
      files.write(
        `f${index}.yaml`,
        `clusters: [{name: c${index}, cluster: {server: "https://c${index}"}}]\n` +
          `users: [{name: u${index}, user: {token: t${index}}}]\n` +
          `contexts: [{name: x${index}, context: {cluster: c${index}, user: u${index}}}]\n`,
      ),
    );
    const { config } = await loadKubeconfig({ env: { KUBECONFIG: paths.join(':') } });
    expect(config.clusters.size).toBe(4);
    expect(config.users.size).toBe(4);
    expect(config.contexts.size).toBe(4);
    expect(config.currentContext).toBe('');
  });

  it('skips missing files in KUBECONFIG and warns when all are missing', async () => {
    const warnings: string[] = [];
    const loaded = await loadKubeconfig({
      env: { KUBECONFIG: files.path('bogus') },
      onWarning: (message) => warnings.push(message),
    });
    expect(loaded.config.clusters.size).toBe(0);
    expect(warnings).toEqual([`Config not found: ${files.path('bogus')}`]);
  });

  it('fails on a missing explicit file, naming it', async () => {
    const explicitPath = files.path('bogus_file');
    const error = await loadKubeconfig({ explicitPath }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KubeconfigError);
    expect((error as KubeconfigError).code).toBe('ERR_CONFIG_READ');
    expect((error as KubeconfigError).message).toContain(explicitPath);
  });

  it('can treat a missing explicit file as empty, like the kubectl config commands', async () => {
    const loaded = await loadKubeconfig({
      explicitPath: files.path('new'),
      allowMissingExplicitPath: true,
    });
    expect(loaded.files).toEqual([]);
  });

  it('fails on a directory or unparsable file, naming it', async () => {
    const directory = files.path('dir');
    mkdirSync(directory);
    const broken = files.write('broken.yaml', 'clusters: [\n');
    for (const path of [directory, broken]) {
      const error = await loadKubeconfig({ env: { KUBECONFIG: path } }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(KubeconfigError);
      expect((error as KubeconfigError).message).toContain(`"${path}"`);
      expect((error as KubeconfigError).path).toBe(path);
    }
  });

  it('reads a zero-byte file as an empty config', async () => {
    const empty = files.write('empty', '');
    const loaded = await loadKubeconfig({ explicitPath: empty });
    expect(loaded.files).toHaveLength(1);
    expect(loaded.config.contexts.size).toBe(0);
  });

  it('rejects duplicate names within one file, naming the file and the name', async () => {
    const path = files.write(
      'dup.yaml',
      'users:\n- name: kubeconfig-user\n  user: {token: a}\n- name: kubeconfig-user\n  user: {token: b}\n',
    );
    const error = (await loadKubeconfig({ explicitPath: path }).catch(
      (caught: unknown) => caught,
    )) as KubeconfigError;
    expect(error.code).toBe('ERR_CONFIG_DUPLICATE_NAME');
    expect(error.message).toContain(path);
    expect(error.message).toContain('"kubeconfig-user"');
    expect(error.entry).toBe('kubeconfig-user');
  });

  it('resolves relative paths against the directory of the defining file', async () => {
    // client-go's TestResolveRelativePaths.
    const first = files.write(
      'one/config',
      `clusters: [{name: c1, cluster: {server: "https://a", certificate-authority: ca/ca.pem}}]
users:
- name: u1
  user: {client-certificate: relative/client/cert, client-key: ../relative/client/key, tokenFile: /abs/token, exec: {command: ../relative/client/cmd, apiVersion: v1}}
- name: u2
  user: {exec: {command: cmd, apiVersion: v1}}
`,
    );
    const second = files.write(
      'two/config',
      `users:
- name: u3
  user: {client-certificate: cert, tokenFile: token}
clusters: [{name: c2, cluster: {server: "https://b", certificate-authority: ca.pem}}]
`,
    );
    const { config } = await loadKubeconfig({ env: { KUBECONFIG: `${first}:${second}` } });
    const one = files.path('one');
    const two = files.path('two');
    expect(config.clusters.get('c1')?.certificateAuthority).toBe(join(one, 'ca/ca.pem'));
    expect(config.clusters.get('c2')?.certificateAuthority).toBe(join(two, 'ca.pem'));
    expect(config.users.get('u1')).toMatchObject({
      clientCertificate: join(one, 'relative/client/cert'),
      clientKey: join(files.root, 'relative/client/key'),
      tokenFile: '/abs/token',
      exec: { command: join(files.root, 'relative/client/cmd') },
    });
    expect(config.users.get('u2')?.exec?.command).toBe('cmd');
    expect(config.users.get('u3')).toMatchObject({
      clientCertificate: join(two, 'cert'),
      tokenFile: join(two, 'token'),
    });
  });

  it('keeps paths as written when resolvePaths is false', async () => {
    const path = files.write(
      'c',
      'clusters: [{name: c, cluster: {server: "https://a", certificate-authority: ca.pem}}]\n',
    );
    const { config } = await loadKubeconfig({ explicitPath: path, resolvePaths: false });
    expect(config.clusters.get('c')?.certificateAuthority).toBe('ca.pem');
  });

  it('reads ~/.kube/config from HOME when KUBECONFIG is unset', async () => {
    files.write('.kube/config', 'current-context: home\n');
    const loaded = await loadKubeconfig({ env: { HOME: files.root } });
    expect(loaded.config.currentContext).toBe('home');
  });
});
