import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheFileName, isServerResources } from '../src/discovery.js';
import { type Clientset } from '../src/index.js';
import { clientsetFor } from './helpers.js';

const opened: Clientset[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const clientset of opened.splice(0)) await clientset.close();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function withDiskCache(directory: string): Promise<Clientset> {
  const clientset = await clientsetFor('admin', { discoveryCache: { directory } });
  opened.push(clientset);
  return clientset;
}

describe('the disk discovery cache against the real API server', () => {
  it('refetches a corrupted cache file and rewrites it with the server’s discovery', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'k-discovery-e2e-'));
    folders.push(directory);
    const first = await withDiskCache(directory);
    const file = join(directory, cacheFileName(first.rest.server.url.href));
    // Well-formed JSON, fresh, of the wrong shape: trusted, it would fail every lookup for 6 hours.
    const corrupted = { storedAt: Date.now(), resources: { groups: 5, resources: [null] } };
    await writeFile(file, JSON.stringify(corrupted));

    const deployments = await first.mapper.resourceFor({ group: 'apps', kind: 'Deployment' });
    expect(deployments).toMatchObject({ version: 'v1', plural: 'deployments', namespaced: true });

    const rewritten = JSON.parse(await readFile(file, 'utf8')) as {
      storedAt: unknown;
      resources: unknown;
    };
    expect(isServerResources(rewritten.resources)).toBe(true);
    expect(rewritten.storedAt).toBeGreaterThanOrEqual(corrupted.storedAt);
    expect(rewritten.resources).toEqual(await first.discovery.serverResources());

    // Another clientset (another process, as far as the cache knows) uses the rewritten file.
    const second = await withDiskCache(directory);
    const configMaps = await second.mapper.resourceFor({ group: '', kind: 'ConfigMap' });
    expect(configMaps.plural).toBe('configmaps');
    expect((await second.coreV1.namespaces().get('default')).metadata?.name).toBe('default');
  });
});
