import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODULE_KINDS, runNodeProgram, type NodeProgramResult } from '@k/test-utils';
import { controlPlane } from '@k/testenv/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { isServerResources } from '../src/discovery.js';

// Real child programs, as users write them, run the built packages against the real control
// plane. Each prints what still holds its event loop (`process.getActiveResourcesInfo()`, which
// lists only what keeps the loop alive) besides its own stdout and stderr pipes: empty means
// the program exits as soon as its work is done. A program that died early (work parked on
// something that does not hold the loop) misses its last line: ESM exits 13, CommonJS 0.

/**
 * PRINT_HOLDING ends the programs: after one turn of the loop (so finished work can release what
 * it held), it prints what keeps the event loop alive, stdio left out.
 */
const PRINT_HOLDING = `await new Promise((resolve) => setImmediate(resolve));
console.log(JSON.stringify(process.getActiveResourcesInfo().filter((type) => type !== 'PipeWrap' && type !== 'TTYWrap')));`;

const folders: string[] = [];

afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function run(
  kind: (typeof MODULE_KINDS)[number],
  main: string,
  options: { env?: Record<string, string>; files?: Record<string, string> } = {},
): Promise<NodeProgramResult> {
  return runNodeProgram(
    {
      imports: { '@k/clientset': ['inferClientset'] },
      main,
      ...(options.files ? { files: options.files } : {}),
    },
    kind,
    { env: { KUBECONFIG_PATH: controlPlane().kubeconfigPath, ...options.env }, timeoutMs: 30_000 },
  );
}

function expectCleanExit(result: NodeProgramResult, lastLine: string): void {
  expect(result.stderr).toBe('');
  expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
  expect(result.stdout.trim().split('\n').at(-1)).toBe(lastLine);
}

const CONNECT = `const cs = await inferClientset({ kubeconfig: process.env.KUBECONFIG_PATH, context: 'admin' });`;

describe.each(MODULE_KINDS)('the lifetime of a plain %s program using @k/clientset', (kind) => {
  it('createClientset, list, close(): exits with status 0, nothing left holding the loop', async () => {
    const result = await run(
      kind,
      `${CONNECT}
      const list = await cs.coreV1.namespaces().list();
      await cs.close();
      console.log(list.items.some((namespace) => namespace.metadata.name === 'default'));
      ${PRINT_HOLDING}`,
    );
    expectCleanExit(result, '[]');
    expect(result.stdout).toBe('true\n[]\n');
  });

  it('forgetting close(): still exits with status 0 once idle (pooled connections do not hold the loop)', async () => {
    const result = await run(
      kind,
      `${CONNECT}
      await cs.coreV1.namespaces().get('default');
      await cs.appsV1.deployments('default').list();
      ${PRINT_HOLDING}`,
    );
    expectCleanExit(result, '[]');
  });

  it('more requests than the default burst (10): throttle waits hold the loop until all are done', async () => {
    const result = await run(
      kind,
      `${CONNECT}
      let done = 0;
      for (let request = 0; request < 13; request += 1) {
        await cs.coreV1.namespaces().get('default');
        done += 1;
      }
      console.log('done', done);
      ${PRINT_HOLDING}`,
    );
    expectCleanExit(result, '[]');
    expect(result.stdout).toBe('done 13\n[]\n');
  });

  it('close() ends a watch still open, so its loop ends and the program exits', async () => {
    const result = await run(
      kind,
      `${CONNECT}
      const watch = await cs.coreV1.namespaces().watch({ fieldSelector: 'metadata.name=default' });
      const loop = (async () => {
        let events = 0;
        for await (const event of watch) events += 1;
        return events;
      })();
      await cs.close();
      console.log('events', await loop);
      ${PRINT_HOLDING}`,
    );
    expectCleanExit(result, '[]');
    expect(result.stdout).toMatch(/^events [01]\n/);
  });

  it('an open watch keeps the program alive until the server ends it', async () => {
    const result = await run(
      kind,
      `${CONNECT}
      const watch = await cs.coreV1.namespaces().watch({ fieldSelector: 'metadata.name=default', timeoutSeconds: 2 });
      const types = [];
      for await (const event of watch) types.push(event.type);
      console.log('ended', types.join(','));
      ${PRINT_HOLDING}`,
    );
    expectCleanExit(result, '[]');
    expect(result.stdout).toMatch(/^ended ADDED\n/);
  });

  it('a disk discovery cache is written before discovery returns and holds nothing open', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'k-lifetime-cache-'));
    folders.push(directory);
    const result = await run(
      kind,
      `const cs = await inferClientset({ kubeconfig: process.env.KUBECONFIG_PATH, context: 'admin', discoveryCache: { directory: process.env.CACHE } });
      const deployments = await cs.mapper.resourceFor({ group: 'apps', kind: 'Deployment' });
      console.log(deployments.plural);
      ${PRINT_HOLDING}`,
      { env: { CACHE: directory } },
    );
    expectCleanExit(result, '[]');
    const [file, ...others] = await readdir(directory);
    expect(others).toEqual([]);
    const entry = JSON.parse(await readFile(join(directory, file!), 'utf8')) as {
      resources: unknown;
    };
    expect(isServerResources(entry.resources)).toBe(true);
  });

  it('an exec credential plugin (a child process) does not outlive its answer', async () => {
    const kubeconfig = parse(await readFile(controlPlane().kubeconfigPath, 'utf8')) as {
      clusters: { name: string }[];
      users: { name: string; user: { token?: string } }[];
    };
    const token = kubeconfig.users.find((user) => user.name === 'tester')?.user.token;
    expect(token).toBeTypeOf('string');
    const execKubeconfig = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: kubeconfig.clusters,
      users: [
        {
          name: 'plugin',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: process.execPath,
              args: ['credential-plugin.cjs'],
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [
        { name: 'plugin', context: { cluster: kubeconfig.clusters[0]!.name, user: 'plugin' } },
      ],
      'current-context': 'plugin',
    });
    const plugin = `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: ${JSON.stringify(token)} } }));`;
    const result = await run(
      kind,
      `const cs = await inferClientset({ kubeconfig: 'kubeconfig' });
      const review = await cs.authenticationV1.selfSubjectReviews().create({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
      console.log(review.status.userInfo.username);
      ${PRINT_HOLDING}`,
      { files: { kubeconfig: execKubeconfig, 'credential-plugin.cjs': plugin } },
    );
    expectCleanExit(result, '[]');
    expect(result.stdout).toBe('tester\n[]\n');
  });
});
