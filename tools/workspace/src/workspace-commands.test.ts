import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The workspace's own commands must work right after `npm ci` on a fresh clone, before any build
// (docs/decisions/0011-workspace-commands-run-from-source.md): npm links a bin only when its
// file exists at install time, so every bin is a committed file, and in the checkout the
// commands run the sources, never a dist/ folder.

const root = join(import.meta.dirname, '../../..');
const run = promisify(execFile);

/** COMMANDS are the workspace's commands and the package each comes from. */
const COMMANDS: Record<string, string> = {
  'k-config': 'packages/config',
  'k-gen': 'packages/codegen',
  'k-envtest': 'packages/envtest',
  'k-testenv': 'tools/testenv',
  'k-runtimes': 'tools/runtimes',
  'demo-operator': 'apps/demo-operator',
};

function manifestBins(): { directory: string; name: string; target: string }[] {
  return ['packages', 'apps', 'tools'].flatMap((group) => {
    let entries: string[] = [];
    try {
      entries = readdirSync(join(root, group));
    } catch {
      return [];
    }
    return entries.flatMap((entry) => {
      const directory = `${group}/${entry}`;
      const manifest = JSON.parse(readFileSync(join(root, directory, 'package.json'), 'utf8')) as {
        bin?: Record<string, string>;
      };
      return Object.entries(manifest.bin ?? {}).map(([name, target]) => ({
        directory,
        name,
        target: join(directory, target),
      }));
    });
  });
}

let scratch: string;
let environment: NodeJS.ProcessEnv;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'k-workspace-commands-'));
  // A resolve hook in every node process of the command (npx, then the bin) that fails the
  // command when anything resolves into a workspace package's dist/: proof that the commands
  // do not depend on a build, whether or not one exists right now. An in-thread hook
  // (module.registerHooks): it sees each resolution as the bin's own hooks (the `@k/source`
  // condition, tsx) made it, and, unlike module.register(), Node 26 does not deprecate it.
  await writeFile(
    join(scratch, 'no-dist.mjs'),
    `import { registerHooks } from 'node:module';
const dist = /\\/(packages|tools|apps)\\/[^/]+\\/dist\\//;
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    if (dist.test(resolved.url) && !resolved.url.includes('/node_modules/')) {
      throw new Error('a workspace command loaded a build: ' + resolved.url);
    }
    return resolved;
  },
});
`,
  );
  await writeFile(
    join(scratch, 'kubeconfig.yaml'),
    `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:6443' } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: fixture-context, context: { cluster: c, user: u } }]
current-context: fixture-context
`,
  );
  environment = { ...process.env, NODE_OPTIONS: `--import=${join(scratch, 'no-dist.mjs')}` };
  for (const name of Object.keys(environment)) {
    if (name.startsWith('VITEST') || name === 'KUBECONFIG') delete environment[name];
  }
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/**
 * withoutLoaderDeprecation drops Node 26's DEP0205 warning about `module.register()`, which the
 * workspace's bins call to run their sources (the `@k/source` condition hook, then tsx); anything
 * else on stderr still counts.
 */
function withoutLoaderDeprecation(stderr: string | undefined): string | undefined {
  return stderr
    ?.replace(/^\(node:\d+\) \[DEP0205\] DeprecationWarning: `module\.register\(\)`.*\n/gm, '')
    .replace(
      /^\(Use `node --trace-deprecation \.\.\.` to show where the warning was created\)\n/gm,
      '',
    );
}

/** npx runs `npx --no-install <command> …args` from the workspace root, as a developer would. */
async function npx(command: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run('npx', ['--no-install', command, ...args], {
      cwd: root,
      env: environment,
    });
    return { status: 0, stdout, stderr: withoutLoaderDeprecation(stderr) };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return {
      status: failure.code,
      stdout: failure.stdout,
      stderr: withoutLoaderDeprecation(failure.stderr),
    };
  }
}

describe('the workspace commands', () => {
  it('are committed files, so npm ci links them before anything is built', async () => {
    const bins = manifestBins();
    expect(bins.map(({ name }) => name).sort()).toEqual(Object.keys(COMMANDS).sort());
    const { stdout } = await run('git', ['ls-files', '--', ...bins.map(({ target }) => target)], {
      cwd: root,
    });
    expect(stdout.trim().split('\n').sort()).toEqual(bins.map(({ target }) => target).sort());
    for (const { name, target, directory } of bins) {
      expect(target.startsWith(`${directory}/dist/`), name).toBe(false);
      expect(relative(root, realpathSync(join(root, 'node_modules/.bin', name))), name).toBe(
        target,
      );
      expect(COMMANDS[name], name).toBe(directory);
    }
  });

  it('k-config current-context reads the kubeconfig it is given', async () => {
    const result = await npx(
      'k-config',
      'current-context',
      '--kubeconfig',
      join(scratch, 'kubeconfig.yaml'),
    );
    expect(result).toEqual({ status: 0, stdout: 'fixture-context\n', stderr: '' });
    const help = await npx('k-config', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^k-config: view and change kubeconfig files/);
  }, 30_000);

  it('k-gen --help prints its usage, and k-gen without a command exits 2', async () => {
    const help = await npx('k-gen', '--help');
    expect(help).toMatchObject({ status: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: k-gen crd <crd\.yaml>/);
    const wrong = await npx('k-gen');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/^k-gen: no command given\n/);
  }, 30_000);

  it('k-testenv help prints its usage', async () => {
    // `help`, not `--help`: k-testenv reads `--help` as no command (usage, exit status 2).
    const help = await npx('k-testenv', 'help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: k-testenv <command>/);
  }, 30_000);

  it('demo-operator --help prints its usage, and a wrong flag exits 2', async () => {
    const help = await npx('demo-operator', '--help');
    expect(help).toMatchObject({ status: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: demo-operator \[flags\]/);
    const wrong = await npx('demo-operator', '--frobnicate');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/^demo-operator: unknown flag --frobnicate\n/);
  }, 30_000);
});
