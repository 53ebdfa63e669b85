import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { renderKubeconfig, writeKubeconfig } from './kubeconfig.js';

const execFileAsync = promisify(execFile);
const dir = await mkdtemp(join(tmpdir(), 'k-testenv-kubeconfig-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const caPem = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';
const options = {
  clusterName: 'k-testenv',
  server: 'https://127.0.0.1:6443',
  caPem,
  users: [
    { name: 'admin', certPem: 'ADMIN CERT\n', keyPem: 'ADMIN KEY\n' },
    { name: 'tester', token: 'a"quoted\\token' },
  ],
  currentContext: 'admin',
};

interface ViewedConfig {
  'current-context': string;
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { name: string; user: Record<string, string> }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace: string } }[];
}

// kubectl (client-go) is the oracle: what it reads back is what the file means.
async function kubectlView(path: string): Promise<ViewedConfig> {
  const { stdout } = await execFileAsync('kubectl', [
    'config',
    'view',
    '--raw',
    '-o',
    'json',
    '--kubeconfig',
    path,
  ]);
  return JSON.parse(stdout) as ViewedConfig;
}

describe('writeKubeconfig', () => {
  it('writes one context per user with inline credentials that kubectl reads back', async () => {
    const path = join(dir, 'kubeconfig');
    await writeKubeconfig(path, options);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const viewed = await kubectlView(path);
    expect(viewed['current-context']).toBe('admin');
    expect(viewed.clusters).toEqual([
      {
        name: 'k-testenv',
        cluster: {
          server: 'https://127.0.0.1:6443',
          'certificate-authority-data': Buffer.from(caPem).toString('base64'),
        },
      },
    ]);
    const admin = viewed.users.find((user) => user.name === 'admin')!;
    expect(Buffer.from(admin.user['client-certificate-data']!, 'base64').toString()).toBe(
      'ADMIN CERT\n',
    );
    expect(Buffer.from(admin.user['client-key-data']!, 'base64').toString()).toBe('ADMIN KEY\n');
    expect(viewed.users.find((user) => user.name === 'tester')!.user.token).toBe('a"quoted\\token');
    expect(viewed.contexts).toEqual([
      { name: 'admin', context: { cluster: 'k-testenv', user: 'admin', namespace: 'default' } },
      { name: 'tester', context: { cluster: 'k-testenv', user: 'tester', namespace: 'default' } },
    ]);
  });

  it('uses the given namespace in every context', () => {
    const text = renderKubeconfig({ ...options, namespace: 'work' });
    expect(text.match(/namespace: "work"/g)).toHaveLength(2);
  });

  it('refuses a current context that is not a user', () => {
    expect(() => renderKubeconfig({ ...options, currentContext: 'nobody' })).toThrow(
      /nobody is not one of the users/,
    );
  });
});
