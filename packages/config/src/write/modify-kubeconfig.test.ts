import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeconfigError } from '../errors.js';
import { loadKubeconfig } from '../load/load-kubeconfig.js';
import type { LoadKubeconfigOptions } from '../load/load-kubeconfig.js';
import type { TempFiles } from '../testing/temp-files.js';
import { createTempFiles } from '../testing/temp-files.js';
import {
  modifyKubeconfig,
  setContext,
  setCurrentContext,
  updateAuthProviderConfig,
} from './modify-kubeconfig.js';

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles();
});
afterEach(() => files.cleanup());

const read = (path: string) => readFileSync(files.path(path), 'utf8');
const load = (options: LoadKubeconfigOptions) =>
  loadKubeconfig({ homeDir: files.path('home'), env: {}, ...options });

async function failure(promise: Promise<unknown>): Promise<KubeconfigError> {
  const error = await promise.catch((caught: unknown) => caught);
  if (error instanceof KubeconfigError) return error;
  throw new Error(`expected a KubeconfigError, got ${String(error)}`);
}

const COMMENTED = `# managed by hand
apiVersion: v1
kind: Config
clusters:
- cluster:
    server: https://a.example:6443 # the load balancer
    certificate-authority: certs/ca.crt
  name: c1

# contexts below
contexts:
- context:
    cluster: c1
    user: u1
    namespace: 'team-a'
  name: ctx-a
current-context: ctx-a
users:
- name: u1
  user:
    auth-provider:
      name: oidc
      config:
        # refreshed by k
        id-token: old-id-token
        client-id: k
`;

describe('modifyKubeconfig', () => {
  it('changes only the edited values and keeps comments, quoting and layout', async () => {
    const explicitPath = files.write('config', COMMENTED);
    await setContext(await load({ explicitPath }), 'ctx-a', { namespace: 'team-b' });
    await updateAuthProviderConfig(await load({ explicitPath }), 'u1', {
      'id-token': 'new-id-token',
      'refresh-token': 'yes',
    });
    expect(read('config')).toBe(
      COMMENTED.replace("namespace: 'team-a'", "namespace: 'team-b'")
        .replace('id-token: old-id-token', 'id-token: new-id-token')
        .replace('client-id: k\n', 'client-id: k\n        refresh-token: "yes"\n'),
    );
  });

  it('never writes back paths that loading resolved', async () => {
    const explicitPath = files.write('config', COMMENTED);
    const loaded = await load({ explicitPath }); // resolvePaths defaults to true
    expect(loaded.config.clusters.get('c1')?.certificateAuthority).toBe(files.path('certs/ca.crt'));
    await updateAuthProviderConfig(loaded, 'u1', { 'id-token': 'rotated' });
    expect(read('config')).toContain('certificate-authority: certs/ca.crt');
  });

  it("writes a changed context into its own file and a new one into kubectl's default file", async () => {
    const a = files.write('a', 'contexts: [{name: in-a, context: {cluster: xa}}]\n');
    const b = files.write(
      'b',
      'current-context: in-b\ncontexts: [{name: in-b, context: {cluster: xb}}]\n',
    );
    const env = { KUBECONFIG: [files.path('missing'), b, a].join(':') };
    await setContext(await load({ env }), 'in-a', { namespace: 'team-n' });
    expect(read('a')).toContain('namespace: team-n');
    const { created, writtenFiles } = await setContext(await load({ env }), 'fresh', { user: 'u' });
    expect(created).toBe(true);
    expect(writtenFiles).toEqual([b]); // the first listed file that exists
    await setCurrentContext(await load({ env }), 'in-a');
    expect((await load({ env })).config.currentContext).toBe('in-a');
    expect(read('b')).toContain('current-context: in-a');
    expect(existsSync(files.path('missing'))).toBe(false);
  });

  it('creates the last listed file 0600 when none exists, and ~/.kube/config without KUBECONFIG', async () => {
    const env = { KUBECONFIG: `${files.path('one')}:${files.path('dir/two')}` };
    await setContext(await load({ env }), 'x', { namespace: 'n' });
    expect(existsSync(files.path('one'))).toBe(false);
    expect(statSync(files.path('dir/two')).mode & 0o777).toBe(0o600);
    await setContext(await load({}), 'y', { cluster: 'c' });
    const home = (await load({})).config;
    expect(home.contexts.get('y')).toEqual({ cluster: 'c', user: '' });
    expect(read('home/.kube/config')).toBe(
      'apiVersion: v1\nkind: Config\ncontexts:\n- name: "y"\n  context:\n    cluster: c\n',
    );
  });

  it('puts current-context into the explicit file and clears it where it is set', async () => {
    const explicitPath = files.write('explicit', 'contexts: [{name: e, context: {}}]\n');
    await setCurrentContext(await load({ explicitPath }), 'e');
    expect(read('explicit')).toContain('current-context: e');

    const first = files.write('first', 'contexts: [{name: f, context: {}}]\n');
    const second = files.write('second', 'current-context: f\n');
    const env = { KUBECONFIG: `${first}:${second}` };
    await setCurrentContext(await load({ env }), '');
    expect(read('second')).toBe('current-context: ""\n');
    expect(read('first')).toBe('contexts: [{name: f, context: {}}]\n');
  });

  it('keeps a JSON file JSON and the later documents of a YAML stream', async () => {
    const json = files.write(
      'config.json',
      '{\n    "contexts": [{"name": "j", "context": {"cluster": "c"}}]\n}\n',
    );
    await setContext(await load({ explicitPath: json }), 'j', { namespace: 'n' });
    expect(JSON.parse(read('config.json'))).toEqual({
      contexts: [{ name: 'j', context: { cluster: 'c', namespace: 'n' } }],
    });
    expect(read('config.json')).toMatch(/^\{\n {4}"contexts"/);

    const stream = files.write(
      'stream',
      'contexts: [{name: s, context: {}}]\n---\nsecond: document\n',
    );
    await setCurrentContext(await load({ explicitPath: stream }), 's');
    expect(read('stream')).toBe(
      'contexts: [{name: s, context: {}}]\ncurrent-context: s\n---\nsecond: document\n',
    );
  });

  it('edits the occurrence of a repeated key that kubectl reads: the last', async () => {
    const explicitPath = files.write(
      'config',
      'current-context: first\ncontexts: [{name: a, context: {}}]\ncurrent-context: last\n',
    );
    await setCurrentContext(await load({ explicitPath }), 'a');
    expect(read('config')).toBe(
      'current-context: first\ncontexts: [{name: a, context: {}}]\ncurrent-context: a\n',
    );
  });

  it('removes a deleted entry from its file', async () => {
    const explicitPath = files.write('config', COMMENTED);
    await modifyKubeconfig(await load({ explicitPath }), (config) => {
      config.clusters.delete('c1');
    });
    expect(read('config')).not.toContain('c1\n\n');
    expect((await load({ explicitPath })).config.clusters.size).toBe(0);
    expect(read('config')).toContain('# managed by hand');
  });

  it('writes nothing when nothing changed', async () => {
    const explicitPath = files.write('config', COMMENTED);
    const result = await modifyKubeconfig(await load({ explicitPath }), () => undefined);
    expect(result.writtenFiles).toEqual([]);
    expect(readdirSync(files.root)).toEqual(['config']);
  });

  it('keeps what another writer changed in the file after it was loaded', async () => {
    const explicitPath = files.write('config', COMMENTED);
    const loaded = await load({ explicitPath });
    writeFileSync(explicitPath, COMMENTED.replace('client-id: k', 'client-id: changed-meanwhile'));
    await updateAuthProviderConfig(loaded, 'u1', { 'id-token': 'fresh' });
    expect(read('config')).toContain('client-id: changed-meanwhile');
    expect(read('config')).toContain('id-token: fresh');
  });

  it('fails on a held lock without touching the file, and removes its own lock', async () => {
    const explicitPath = files.write('config', COMMENTED);
    files.write('config.lock', '');
    const error = await failure(
      setContext(await load({ explicitPath }), 'ctx-a', { namespace: 'x' }),
    );
    expect(error.code).toBe('ERR_CONFIG_WRITE');
    expect(error.message).toContain(`${explicitPath}.lock exists`);
    expect(read('config')).toBe(COMMENTED);
    expect(existsSync(`${explicitPath}.lock`)).toBe(true); // someone else's lock stays

    rmSync(`${explicitPath}.lock`);
    await setContext(await load({ explicitPath }), 'ctx-a', { namespace: 'x' });
    expect(read('config')).toContain("namespace: 'x'");
    expect(readdirSync(files.root)).toEqual(['config']);
  });

  it('waits for a lock when asked to', async () => {
    const explicitPath = files.write('config', COMMENTED);
    const lock = files.write('config.lock', '');
    setTimeout(() => rmSync(lock), 50);
    await setContext(
      await load({ explicitPath }),
      'ctx-a',
      { namespace: 'x' },
      { lockWaitMs: 2000 },
    );
    expect(read('config')).toContain("namespace: 'x'");
  });

  it('waits as long as it takes with lockWaitMs Infinity', async () => {
    const explicitPath = files.write('config', COMMENTED);
    const lock = files.write('config.lock', '');
    setTimeout(() => rmSync(lock), 50);
    await setCurrentContext(await load({ explicitPath }), '', { lockWaitMs: Infinity });
    expect(read('config')).not.toContain('current-context: ctx-a');
  });

  it('refuses to write over a file that no longer parses', async () => {
    const explicitPath = files.write('config', COMMENTED);
    const loaded = await load({ explicitPath });
    writeFileSync(explicitPath, 'clusters: [\n');
    const error = await failure(setCurrentContext(loaded, ''));
    expect(error.code).toBe('ERR_CONFIG_WRITE');
    expect(read('config')).toBe('clusters: [\n');
  });

  it('reports missing entries and unsupported changes', async () => {
    const explicitPath = files.write('config', COMMENTED);
    const loaded = await load({ explicitPath });
    expect((await failure(setCurrentContext(loaded, 'nope'))).message).toBe(
      'no context exists with the name: "nope"',
    );
    expect((await failure(updateAuthProviderConfig(loaded, 'nobody', {}))).code).toBe(
      'ERR_CONFIG_NOT_FOUND',
    );
    const preferences = await failure(
      modifyKubeconfig(loaded, (config) => {
        config.preferences.colors = true;
      }),
    );
    expect(preferences.code).toBe('ERR_CONFIG_WRITE');
  });
});
