import { existsSync, readFileSync, rmSync } from 'node:fs';
import { MODULE_KINDS, runNodeProgram, startNodeProgram } from '@k/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TempFiles } from '../src/testing/temp-files.js';
import { createTempFiles } from '../src/testing/temp-files.js';

// @k/config's only timer is the retry of a held kubeconfig lock; it opens files and closes them
// again, and starts no process or socket. Run as a user's own `node` program (ESM and CommonJS,
// against the built package): a program waiting for the lock must stay alive until it has it,
// and a program that is done must have nothing of ours left holding it open.

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: https://a.example}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: one, context: {cluster: c, user: u}}, {name: two, context: {cluster: c, user: u}}]
current-context: one
`;

let files: TempFiles;
let path: string;
beforeEach(() => {
  files = createTempFiles('k-config-lifetime-');
  path = files.write('config', KUBECONFIG);
});
afterEach(() => files.cleanup());

describe.each(MODULE_KINDS)('process lifetime (%s)', (kind) => {
  it('a program whose only work is waiting for a held lock stays alive until it has it', async () => {
    const lock = files.write('config.lock', ''); // as kubectl holds it while writing
    const program = await startNodeProgram(
      {
        imports: { '@k/config': ['loadKubeconfig'], '@k/config/edit': ['setCurrentContext'] },
        main: `
          const loaded = await loadKubeconfig({ explicitPath: process.argv[2] });
          console.log('waiting');
          await setCurrentContext(loaded, 'two', { lockWaitMs: 60_000 });
          console.log('switched');`,
      },
      kind,
      { args: [path] },
    );
    await program.waitForStdout(/waiting/);
    // The program is parked on the retry timer now; a timer that did not hold the event loop
    // open would have ended it (ESM: exit 13, CommonJS: exit 0) without switching.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readFileSync(path, 'utf8')).toContain('current-context: one');
    rmSync(lock);
    const result = await program.exited;
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'waiting\nswitched\n' });
    expect(readFileSync(path, 'utf8')).toContain('current-context: two');
    expect(existsSync(lock)).toBe(false); // its own lock is gone too
  });

  it('a program that gives up on a held lock fails with the lock named and ends', async () => {
    files.write('config.lock', '');
    const result = await runNodeProgram(
      {
        imports: { '@k/config': ['loadKubeconfig'], '@k/config/edit': ['setCurrentContext'] },
        main: `
          const loaded = await loadKubeconfig({ explicitPath: process.argv[2] });
          await setCurrentContext(loaded, 'two', { lockWaitMs: 100 });`,
      },
      kind,
      { args: [path] },
    );
    expect(result).toMatchObject({ exitCode: 1, timedOut: false });
    expect(result.stderr).toContain(`cannot lock kubeconfig "${path}": ${path}.lock exists`);
    expect(readFileSync(path, 'utf8')).toBe(KUBECONFIG);
  });

  it('loading, resolving, writing and inferring leave nothing that holds the process open', async () => {
    const result = await runNodeProgram(
      {
        imports: {
          '@k/config': ['inferConfig', 'loadKubeconfig', 'resolveConfig'],
          '@k/config/edit': ['setCurrentContext'],
        },
        main: `
          const before = new Set(process.getActiveResourcesInfo());
          const loaded = await loadKubeconfig({ explicitPath: process.argv[2] });
          resolveConfig(loaded);
          await setCurrentContext(loaded, 'two', { lockWaitMs: 1000 });
          await inferConfig({ explicitPath: process.argv[2] });
          await loadKubeconfig({ explicitPath: process.argv[2] + '.missing' }).catch(() => {});
          // A finished fs request leaves its resource listed until the next turn of the loop.
          await new Promise((resolve) => setImmediate(resolve));
          const left = process.getActiveResourcesInfo().filter((name) => !before.has(name));
          console.log(JSON.stringify(left));`,
      },
      kind,
      { args: [path], timeoutMs: 30_000 },
    );
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: '[]\n' });
    expect(readFileSync(path, 'utf8')).toContain('current-context: two');
  });
});
