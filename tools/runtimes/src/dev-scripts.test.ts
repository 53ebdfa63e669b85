import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '@k/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureRuntime } from './index.js';
import { temporaryDirectory } from './test-fixtures.js';

const WORKSPACE_ROOT = path.resolve(import.meta.dirname, '../../..');

/** DEV_NODE is how a workspace script that needs the floor starts (tools/runtimes/README.md). */
const DEV_NODE = 'PATH="$(node tools/runtimes/bin/k-runtimes.mjs dev-path)" && ';

const removals: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const remove of removals.splice(0)) await remove();
});

/** npmRun runs `npm run <script>` in `cwd` as a user's terminal would (no npm or vitest settings). */
const npmRun = (cwd: string, script: string) => runCommand('npm', ['run', '--silent', script], cwd);

/** project is a workspace-shaped folder (tools/runtimes linked in) whose floor is `floor`. */
async function project(floor: string): Promise<string> {
  const { directory, remove } = await temporaryDirectory('dev-scripts');
  removals.push(remove);
  await mkdir(path.join(directory, 'tools'));
  await symlink(
    path.join(WORKSPACE_ROOT, 'tools/runtimes'),
    path.join(directory, 'tools/runtimes'),
  );
  const manifest = {
    private: true,
    engines: { node: `>=${floor}` },
    scripts: { version: `${DEV_NODE}node -p process.version` },
  };
  await writeFile(path.join(directory, 'package.json'), JSON.stringify(manifest));
  return directory;
}

describe("the workspace's own scripts", () => {
  it('start, test and test:e2e choose their Node first', async () => {
    const manifest = JSON.parse(
      await readFile(path.join(WORKSPACE_ROOT, 'package.json'), 'utf8'),
    ) as {
      scripts: Record<string, string>;
      engines: { node: string };
    };
    expect(manifest.scripts.start).toBe(`${DEV_NODE}node apps/demo-operator/bin/npm-start.mjs`);
    expect(manifest.scripts.test?.startsWith(DEV_NODE)).toBe(true);
    expect(manifest.scripts['test:e2e']?.startsWith(`${DEV_NODE}vitest run`)).toBe(true);
  });

  it('run on the invoking Node, unchanged and silent, when it is at least the floor', async () => {
    const result = await npmRun(await project(process.versions.node), 'version');
    expect(result).toEqual({ status: 0, stdout: `${process.version}\n`, stderr: '' });
  });

  it('run on the primary line when the invoking Node is below the floor, saying so in one line', async () => {
    const primary = await ensureRuntime('node@24');
    const result = await npmRun(await project('999.0.0'), 'version');
    expect(result).toEqual({
      status: 0,
      stdout: `v${primary.version}\n`,
      stderr: `k-runtimes: Node ${process.versions.node} is older than this workspace's floor 999.0.0: running on Node 24.22.3 from tools/runtimes\n`,
    });
  });
});
