import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureRuntime } from './index.js';
import { temporaryDirectory } from './test-fixtures.js';

const CLI = path.resolve(import.meta.dirname, '../bin/k-runtimes.mjs');

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** cli runs k-runtimes in a real child node; `started` sees it before it ends. */
function cli(
  args: string[],
  options: { cwd?: string; started?: (child: ReturnType<typeof spawn>) => void } = {},
): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    options.started?.(child);
  });
}

const removals: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const remove of removals.splice(0)) await remove();
});

async function projectWithEngines(range: string): Promise<string> {
  const { directory, remove } = await temporaryDirectory('engines');
  removals.push(remove);
  await writeFile(
    path.join(directory, 'package.json'),
    JSON.stringify({ engines: { node: range } }),
  );
  return directory;
}

describe('k-runtimes', () => {
  it('path prints the executable of the runtime', async () => {
    const runtime = await ensureRuntime('node@24');
    const ended = await cli(['path', 'node@24']);
    expect(ended).toMatchObject({ code: 0, stdout: `${runtime.executable}\n` });
  });

  it('exec runs the command with the runtime first on PATH, naming it', async () => {
    const ended = await cli([
      'exec',
      'node@24',
      '--',
      'node',
      '-p',
      'process.version + " " + process.env.K_RUNTIMES_NAME + " " + process.env.K_RUNTIMES_VERSION',
    ]);
    expect(ended).toMatchObject({ code: 0, stdout: 'v24.22.3 node@24 24.22.3\n' });
  });

  it('exec passes the exit code on, and dies of the signal the command died of', async () => {
    expect((await cli(['exec', 'node@24', '--', 'node', '-e', 'process.exit(7)'])).code).toBe(7);
    const killed = await cli(['exec', 'node@24', '--', 'node', '-e', 'process.kill(process.pid)']);
    expect(killed).toMatchObject({ code: null, signal: 'SIGTERM' });
    const missing = await cli(['exec', 'node@24', '--', 'k-runtimes-no-such-command']);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toBe('k-runtimes: k-runtimes-no-such-command: command not found\n');
  });

  it('exec passes SIGTERM on to the command', async () => {
    const program =
      'process.on("SIGTERM", () => { console.log("terminated"); process.exit(3); }); console.log("ready"); setInterval(() => {}, 1000);';
    const ended = await cli(['exec', 'node@24', '--', 'node', '-e', program], {
      started: (child) =>
        child.stdout!.on('data', (chunk: string) => {
          if (chunk.includes('ready')) child.kill('SIGTERM');
        }),
    });
    expect(ended).toMatchObject({ code: 3, stdout: 'ready\nterminated\n' });
  });

  it('dev-path keeps PATH, silently, for a Node at or above the floor', async () => {
    const cwd = await projectWithEngines(`>=${process.versions.node}`);
    expect(await cli(['dev-path'], { cwd })).toEqual({
      code: 0,
      signal: null,
      stdout: `${process.env.PATH}\n`,
      stderr: '',
    });
  });

  it('dev-path puts the primary line first for a Node below the floor, in one line', async () => {
    const runtime = await ensureRuntime('node@24');
    const cwd = await projectWithEngines('>=999.0.0');
    const ended = await cli(['dev-path'], { cwd });
    expect(ended.code).toBe(0);
    expect(ended.stdout).toBe(`${runtime.binDir}${path.delimiter}${process.env.PATH}\n`);
    expect(ended.stderr).toBe(
      `k-runtimes: Node ${process.versions.node} is older than this workspace's floor 999.0.0: running on Node 24.22.3 from tools/runtimes\n`,
    );
  });

  it('refuses an engines range it cannot read, and prints usage for an unknown command', async () => {
    const cwd = await projectWithEngines('^22');
    expect(await cli(['dev-path'], { cwd })).toMatchObject({
      code: 1,
      stderr: 'k-runtimes: engines.node "^22" is not of the form ">=X.Y.Z"\n',
    });
    const usage = await cli(['frobnicate']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^usage: k-runtimes/);
  });
});
