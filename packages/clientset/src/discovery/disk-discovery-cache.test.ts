import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { lstat, mkdir, mkdtemp, open, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startDiscoveryServer } from '../__fixtures__/discovery-server.js';
import type { RecordingServer } from '../__fixtures__/recording-server.js';
import { cacheFileName, DiskDiscoveryCache } from './disk-discovery-cache.js';
import { DiscoveryClient } from './discovery-client.js';
import { RestMapper } from './rest-mapper.js';
import type { ServerResources } from './discovery-documents.js';

let server: RecordingServer | undefined;
const temporary: string[] = [];
const fifos: string[] = [];

afterEach(async () => {
  // A reader blocked on a FIFO (the bug these tests catch) holds a libuv thread until a writer
  // opens it: open each one for writing so a failing test cannot hang the worker.
  for (const fifo of fifos.splice(0)) {
    const writer = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(
      () => undefined,
    );
    await writer?.close();
  }
  await server?.close();
  server = undefined;
  for (const directory of temporary.splice(0))
    await rm(directory, { recursive: true, force: true });
});

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'k-discovery-'));
  temporary.push(directory);
  return directory;
}

const APPS = { name: 'apps', versions: ['v1'], preferredVersion: 'v1' };
const EMPTY: ServerResources = {
  groups: [],
  resources: [],
  aggregated: true,
  failedGroupVersions: [],
};

/** readEntry reads a cache file as a new process would, to check it was rewritten whole. */
async function readEntry(file: string): Promise<{ storedAt: number; resources: ServerResources }> {
  return JSON.parse(await readFile(file, 'utf8')) as {
    storedAt: number;
    resources: ServerResources;
  };
}

// A fake discovery server counts requests, so a cache miss (a refetch) can be seen; the files
// are real files in a temporary folder. e2e/discovery-cache.e2e.test.ts does the same against
// the real API server.
describe('DiskDiscoveryCache with bad files (fake discovery server)', () => {
  const now = Date.now();
  const wrongShapes: [string, unknown][] = [
    ['null', null],
    ['an array', []],
    ['a number', 5],
    ['groups that are a number', { groups: 5 }],
    ['resources that are not a list', { storedAt: now, resources: { groups: 5, resources: {} } }],
    [
      'groups that are a number inside a fresh entry',
      { storedAt: now, resources: { ...EMPTY, groups: 5 } },
    ],
    [
      'a null resource',
      { storedAt: now, resources: { ...EMPTY, groups: [APPS], resources: [null] } },
    ],
    [
      'a resource whose verbs are not strings',
      {
        storedAt: now,
        resources: {
          ...EMPTY,
          groups: [APPS],
          resources: [
            {
              group: 'apps',
              version: 'v1',
              kind: 'Deployment',
              plural: 'deployments',
              namespaced: true,
              verbs: 5,
            },
          ],
        },
      },
    ],
    [
      'a group without versions',
      { storedAt: now, resources: { ...EMPTY, groups: [{ name: 'apps' }] } },
    ],
    ['a storedAt that is text', { storedAt: 'yesterday', resources: EMPTY }],
  ];

  it.each(wrongShapes)(
    'a well-formed file of the wrong shape (%s) is a miss, refetched and replaced',
    async (_name, content) => {
      server = await startDiscoveryServer('aggregated');
      const directory = await temporaryDirectory();
      const file = join(directory, cacheFileName(server.client.server.url.href));
      await writeFile(file, JSON.stringify(content));
      const discovery = new DiscoveryClient(server.client, {
        cache: new DiskDiscoveryCache({ directory }),
      });
      const mapper = new RestMapper(discovery);
      expect((await mapper.resourceFor({ group: 'apps', kind: 'Deployment' })).plural).toBe(
        'deployments',
      );
      expect(server.requests).toHaveLength(2);
      expect((await readEntry(file)).resources).toEqual(await discovery.serverResources());
      // A new process reads the replaced file instead of the server.
      await new DiscoveryClient(server.client, {
        cache: new DiskDiscoveryCache({ directory }),
      }).serverResources();
      expect(server.requests).toHaveLength(2);
    },
  );

  it('a FIFO at the file is a miss, never a hang, and is replaced by the next fetch', async () => {
    server = await startDiscoveryServer('aggregated');
    const directory = await temporaryDirectory();
    const file = join(directory, cacheFileName(server.client.server.url.href));
    await promisify(execFile)('mkfifo', [file]);
    fifos.push(file);
    expect(
      await new DiskDiscoveryCache({ directory }).get(server.client.server.url.href),
    ).toBeUndefined();
    const discovery = new DiscoveryClient(server.client, {
      cache: new DiskDiscoveryCache({ directory }),
    });
    await discovery.serverResources();
    expect((await lstat(file)).isFile()).toBe(true);
    expect((await readEntry(file)).resources.aggregated).toBe(true);
  });

  it('a symlink at the file is not followed: a miss, replaced by a file; its target is untouched', async () => {
    server = await startDiscoveryServer('aggregated');
    const directory = await temporaryDirectory();
    const elsewhere = await temporaryDirectory();
    const target = join(elsewhere, 'planted.json');
    const planted = JSON.stringify({ storedAt: Date.now(), resources: EMPTY });
    await writeFile(target, planted);
    const file = join(directory, cacheFileName(server.client.server.url.href));
    await symlink(target, file);
    const discovery = new DiscoveryClient(server.client, {
      cache: new DiskDiscoveryCache({ directory }),
    });
    expect((await discovery.serverResources()).resources.length).toBeGreaterThan(50);
    expect(server.requests).toHaveLength(2);
    expect((await lstat(file)).isSymbolicLink()).toBe(false);
    expect(await readFile(target, 'utf8')).toBe(planted);
  });

  it('a directory at the file is a miss, and discovery works though the file cannot be written', async () => {
    server = await startDiscoveryServer('aggregated');
    const directory = await temporaryDirectory();
    await mkdir(join(directory, cacheFileName(server.client.server.url.href), 'inside'), {
      recursive: true,
    });
    const discovery = new DiscoveryClient(server.client, {
      cache: new DiskDiscoveryCache({ directory }),
    });
    expect((await discovery.serverResources()).resources.length).toBeGreaterThan(50);
    await discovery.invalidate();
    expect((await discovery.serverResources()).resources.length).toBeGreaterThan(50);
    expect(server.requests).toHaveLength(4);
  });

  it('a cache folder that is a file: every read misses, every write fails quietly', async () => {
    server = await startDiscoveryServer('aggregated');
    const notAFolder = join(await temporaryDirectory(), 'a-file');
    await writeFile(notAFolder, 'not a folder');
    const discovery = new DiscoveryClient(server.client, {
      cache: new DiskDiscoveryCache({ directory: notAFolder }),
    });
    expect((await discovery.serverResources()).resources.length).toBeGreaterThan(50);
    await discovery.invalidate();
    expect((await discovery.serverResources()).resources.length).toBeGreaterThan(50);
    expect(await readFile(notAFolder, 'utf8')).toBe('not a folder');
  });

  it('a file larger than any discovery is a miss, not read, even when it holds a fresh entry', async () => {
    const directory = await temporaryDirectory();
    const file = join(directory, cacheFileName('https://h:1'));
    // Valid JSON (trailing spaces are whitespace), 65 MiB: more than any discovery document.
    const entry = JSON.stringify({ storedAt: Date.now(), resources: EMPTY });
    await writeFile(file, entry + ' '.repeat(65 * 1024 * 1024));
    expect(await new DiskDiscoveryCache({ directory }).get('https://h:1')).toBeUndefined();
    await writeFile(file, entry);
    expect(await new DiskDiscoveryCache({ directory }).get('https://h:1')).toEqual(EMPTY);
  });
});

describe('cache file names', () => {
  it('differ for http and https at the same host and port', async () => {
    expect(cacheFileName('http://127.0.0.1:6443')).not.toBe(
      cacheFileName('https://127.0.0.1:6443'),
    );
    const directory = await temporaryDirectory();
    await new DiskDiscoveryCache({ directory }).set('http://127.0.0.1:6443', EMPTY);
    expect(
      await new DiskDiscoveryCache({ directory }).get('https://127.0.0.1:6443'),
    ).toBeUndefined();
    expect(await new DiskDiscoveryCache({ directory }).get('http://127.0.0.1:6443')).toEqual(EMPTY);
  });

  it('never collide for different servers or server paths', () => {
    const servers = [
      'https://127.0.0.1:6443',
      'http://127.0.0.1:6443',
      'https://127.0.0.1:6444',
      'https://127.0.0.1_6443',
      'https://localhost',
      'https://localhost:8443',
      'https://h/k8s/clusters/c-1',
      'https://h/k8s/clusters/c_1',
      'https://h/k8s_clusters/c-1',
      'https://h/k8s/clusters/c-1/x',
      'https://h_k8s/clusters/c-1',
      'https://[::1]:6443',
      'https://[::1:6443]',
      'https://h/%2Fa',
      'https://h//a',
      `https://h/${'a'.repeat(300)}`,
      `https://h/${'a'.repeat(300)}b`,
    ];
    const names = servers.map(cacheFileName);
    expect(new Set(names).size).toBe(servers.length);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(200);
  });

  it('are the same for spellings of one server (default port, case, trailing slash)', () => {
    expect(cacheFileName('https://Example.COM:443/')).toBe(cacheFileName('https://example.com'));
    expect(cacheFileName('https://h:6443/k8s/')).toBe(cacheFileName('https://h:6443/k8s'));
  });

  it('start with a readable name like kubectl folders', () => {
    expect(cacheFileName('https://127.0.0.1:6443')).toMatch(
      /^https_127\.0\.0\.1_6443-[0-9a-f]{64}\.json$/,
    );
    expect(cacheFileName('https://rancher.example/k8s/clusters/c-1')).toMatch(
      /^https_rancher\.example_443_k8s_clusters_c-1-[0-9a-f]{64}\.json$/,
    );
  });
});
