import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  installPackedPackages,
  runCommand,
  userEnvironment,
  WORKSPACE_ROOT,
  type CommandResult,
  type InstalledProject,
} from '@k/test-utils';
import { resolveCacheRoot } from '@k/testenv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// Issue 27's "done when", as a user meets it: the packages are packed with npm and the tarballs
// installed into an empty project outside the workspace, with vitest, typescript and Node's types
// from the registry. The README's example (examples/operator-e2e) is copied in, type-checked and
// built by tsc as a user's project does (module NodeNext, strict), and its tests run:
//   (a) under vitest, on built binaries (the cache);
//   (b) under vitest, on a KUBEBUILDER_ASSETS directory of kube-apiserver and etcd only;
//   (c) under node --test, a control plane per file, on built binaries;
//   (d) under `k-envtest run -- node --test`, one control plane, on KUBEBUILDER_ASSETS.
// A probe file beside the example reports each run's components, so each run proves which
// binaries it ran on. Every child gets a TMPDIR of its own: the run directories of its control
// planes are made there, so "nothing is left" is exact — no process mentions that TMPDIR and no
// run directory remains in it. Then a SIGKILLed vitest runner, and CommonJS `require`.

const PACKAGES = ['config', 'transport', 'rest', 'clientset', 'runtime', 'envtest'];
/** What the example needs beside the packages, at the versions the workspace uses. */
const DEPENDENCIES = ['vitest', 'typescript', '@types/node'];
const EXAMPLE = join(WORKSPACE_ROOT, 'packages/envtest/examples/operator-e2e');
const EXAMPLE_FILES = [
  'greeting-crd.yaml',
  'generated/greeting-v1.ts',
  'operator.ts',
  'operator.e2e.test.ts',
  'operator.node-test.ts',
  'vitest.config.ts',
];
/** TSCONFIG is a user's tsconfig.json for Node over the example; tsc emits .js beside each file. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    types: ['node'],
  },
  include: ['*.ts', 'generated/*.ts'],
};
/** The warm cache of this machine (the engine's root), so no run builds. */
const CACHE_ROOT = resolveCacheRoot();
/** The variables that would point a child at another plane or other binaries. */
const FOREIGN_VARIABLES = [
  'KUBECONFIG',
  'KUBEBUILDER_ASSETS',
  'TEST_ASSET_KUBE_APISERVER',
  'TEST_ASSET_ETCD',
  'TEST_ASSET_KUBECTL',
  'K_ENVTEST_KUBECONFIG',
  'K_ENVTEST_RUN_DIR',
  'K_ENVTEST_CACHE',
  'K_TESTENV_KUBECONFIG',
  'K_TESTENV_CACHE',
];

/** A vitest test file that reports the plane it runs on (PROBE_FILE gets one JSON line). */
const VITEST_PROBE = `import { appendFileSync } from 'node:fs';
import { useEnvironment } from '@k/envtest/vitest';
import { it } from 'vitest';

const env = useEnvironment();

it('reports its control plane', () => {
  const { server, components } = env;
  appendFileSync(process.env.PROBE_FILE ?? '', JSON.stringify({ server, components }) + '\\n');
});
`;
/** The same for node:test, in plain JavaScript. */
const NODE_TEST_PROBE = `import { appendFileSync } from 'node:fs';
import { test } from 'node:test';
import { useEnvironment } from '@k/envtest/node-test';

const env = useEnvironment();

test('reports its control plane', () => {
  const { server, components } = env;
  appendFileSync(process.env.PROBE_FILE ?? '', JSON.stringify({ server, components }) + '\\n');
});
`;
/** A vitest test that says where its plane is, then blocks until its runner is killed. */
const HOLD_TEST = `import { writeFileSync } from 'node:fs';
import { useEnvironment } from '@k/envtest/vitest';
import { it } from 'vitest';

const env = useEnvironment();

it('holds', async () => {
  writeFileSync(process.env.HOLD_FILE ?? '', JSON.stringify({ server: env.server }));
  await new Promise(() => {});
}, 600_000);
`;
/** A CommonJS program: both CommonJS entries load, the vitest ones are ESM only, a plane starts and stops. */
const CJS_PROGRAM = `'use strict';
const { startEnvironment, EnvtestError } = require('@k/envtest');
const nodeTest = require('@k/envtest/node-test');

function refused(specifier) {
  try {
    require(specifier);
    return 'loaded';
  } catch (error) {
    return error.code;
  }
}

async function main() {
  const env = await startEnvironment({ nodes: 0, controllerManager: false, scheduler: false });
  try {
    const cs = await env.admin.clientset();
    const namespaces = await cs.coreV1.namespaces().list();
    console.log(JSON.stringify({
      useEnvironment: typeof nodeTest.useEnvironment,
      envtestError: typeof EnvtestError,
      vitest: refused('@k/envtest/vitest'),
      globalSetup: refused('@k/envtest/vitest/global-setup'),
      components: env.components,
      source: env.binaries.source,
      namespaces: namespaces.items.map((namespace) => namespace.metadata.name).sort(),
      runDir: env.runDir,
    }));
  } finally {
    await env.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

let installed: InstalledProject | undefined;
let project: string;
let scratch: string;
/** built is what tsc reported building the example. */
let built: CommandResult;
/** assets is the KUBEBUILDER_ASSETS directory `k-envtest assets` printed. */
let assets: string;

/** workspaceVersion is the version of `name` the workspace has installed. */
async function workspaceVersion(name: string): Promise<string> {
  const manifest = join(WORKSPACE_ROOT, 'node_modules', name, 'package.json');
  return (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
}

/** testNames lists the `it('…')` names of an example file, in order. */
function testNames(source: string): string[] {
  return [...source.matchAll(/\bit\(\s*'([^']+)'/g)].map((match) => match[1] ?? '');
}

beforeAll(async () => {
  installed = await installPackedPackages({
    packages: PACKAGES,
    dependencies: await Promise.all(
      DEPENDENCIES.map(async (name) => `${name}@${await workspaceVersion(name)}`),
    ),
    manifest: { type: 'module' },
  });
  project = installed.directory;
  expect(relative(WORKSPACE_ROOT, project).startsWith('..')).toBe(true);
  await mkdir(join(project, 'generated'));
  for (const file of EXAMPLE_FILES) await copyFile(join(EXAMPLE, file), join(project, file));
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  await writeFile(join(project, 'probe.e2e.test.ts'), VITEST_PROBE);
  await writeFile(join(project, 'probe.node-test.mjs'), NODE_TEST_PROBE);
  await writeFile(join(project, 'hold.e2e.test.ts'), HOLD_TEST);
  await mkdir(join(project, 'cjs'));
  await writeFile(join(project, 'cjs/package.json'), JSON.stringify({ type: 'commonjs' }));
  await writeFile(join(project, 'cjs/check.js'), CJS_PROGRAM);
  // The project's own tsc, as a user runs it; emitted also after a type error (the runs below
  // still say what works), which fails a test of its own.
  built = await runCommand(
    process.execPath,
    [join(project, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
    project,
  );
  scratch = await mkdtemp(join(tmpdir(), 'k-envtest-installed-'));
  const printed = await runCommand(
    process.execPath,
    [join(project, 'node_modules/.bin/k-envtest'), 'assets'],
    project,
    { env: userVariables() },
  );
  expect(printed, printed.stderr).toMatchObject({ status: 0 });
  assets = printed.stdout.trim();
}, 600_000);

afterAll(async () => {
  await installed?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Children still running at the end of a test: killed after it. */
const running = new Set<() => void>();
afterEach(() => {
  for (const kill of running) kill();
  running.clear();
});

/**
 * userVariables are the variables of a user's shell for a run: none pointing at this workspace's
 * plane or binaries, the warm cache, and `extra`.
 */
function userVariables(
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  const variables: Record<string, string | undefined> = {};
  for (const name of FOREIGN_VARIABLES) variables[name] = undefined;
  return { ...variables, K_ENVTEST_CACHE: CACHE_ROOT, ...extra };
}

/** Run is one child run in the project with a TMPDIR of its own. */
interface Run {
  readonly result: CommandResult;
  /** probes are the JSON lines the probe files wrote. */
  readonly probes: { server: string; components: string[] }[];
  readonly tmp: string;
}

/** runInProject runs `command` in the project as a user would, with its own TMPDIR and PROBE_FILE. */
async function runInProject(
  name: string,
  command: readonly string[],
  extra: Record<string, string | undefined> = {},
): Promise<Run> {
  const tmp = await mkdtemp(join(scratch, `${name}-`));
  const probeFile = join(scratch, `${name}.probe`);
  const [program = '', ...args] = command;
  const result = await runCommand(program, args, project, {
    env: userVariables({ TMPDIR: tmp, PROBE_FILE: probeFile, ...extra }),
    timeoutMs: 300_000,
  });
  const probeText = await readFile(probeFile, 'utf8').catch(() => '');
  const probes = probeText
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { server: string; components: string[] });
  return { result, probes, tmp };
}

/** processesMentioning lists live processes whose command line contains `text`. */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (commandLine.includes(text) && isAlive(Number(entry))) {
        found.push(`${entry} ${commandLine.replaceAll('\0', ' ').slice(0, 200)}`);
      }
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/** ProcessStat is what /proc/<pid>/stat says of a process. */
interface ProcessStat {
  readonly pid: number;
  readonly parent: number;
  readonly state: string;
  readonly startTime: string;
}

function statOf(pid: number): ProcessStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      pid,
      state: fields[0] ?? '',
      parent: Number(fields[1]),
      startTime: fields[19] ?? '',
    };
  } catch {
    return undefined;
  }
}

/** isAlive is true while `pid` exists and is not a zombie (a zombie runs nothing, holds no port). */
function isAlive(pid: number, startTime?: string): boolean {
  const stat = statOf(pid);
  if (!stat || stat.state === 'Z') return false;
  return startTime === undefined || stat.startTime === startTime;
}

/** descendantsOf lists every live process below `root` in the parent links of /proc. */
function descendantsOf(root: number): ProcessStat[] {
  const stats = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => statOf(Number(entry)))
    .filter((stat): stat is ProcessStat => stat !== undefined && stat.state !== 'Z');
  const below = new Set([root]);
  const found: ProcessStat[] = [];
  for (let grew = true; grew;) {
    grew = false;
    for (const stat of stats) {
      if (!below.has(stat.pid) && below.has(stat.parent)) {
        below.add(stat.pid);
        found.push(stat);
        grew = true;
      }
    }
  }
  return found;
}

/** listeningPorts are the TCP ports the processes listen on, from /proc (no ss needed). */
function listeningPorts(pids: readonly number[]): Set<number> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`, 'utf8'));
        if (match?.[1]) inodes.add(match[1]);
      }
    } catch {
      // Exited while we looked.
    }
  }
  const ports = new Set<number>();
  for (const [inode, port] of listeningSockets()) if (inodes.has(inode)) ports.add(port);
  return ports;
}

/** listeningSockets are every listening TCP socket of the machine: [inode, port]. */
function listeningSockets(): [string, number][] {
  const sockets: [string, number][] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== '0A') continue; // LISTEN
      sockets.push([fields[9] ?? '', parseInt(fields[1]?.split(':')[1] ?? '0', 16)]);
    }
  }
  return sockets;
}

/** runDirectories lists what the control planes left in a TMPDIR. */
async function runDirectories(tmp: string): Promise<string[]> {
  return (await readdir(tmp)).filter((name) => /^k-(test|env)/.test(name));
}

/** expectNothingLeft checks, for up to `withinMs`, that no process or run directory of `tmp` remains. */
async function expectNothingLeft(tmp: string, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const processes = processesMentioning(tmp);
    const directories = await runDirectories(tmp);
    if (processes.length === 0 && directories.length === 0) return;
    if (Date.now() > deadline) {
      expect({ processes, directories }).toEqual({ processes: [], directories: [] });
    }
    await sleep(200);
  }
}

/** vitestResults reads vitest's JSON report: each test's full name and status. */
async function vitestResults(file: string): Promise<Record<string, string>> {
  const report = JSON.parse(await readFile(file, 'utf8')) as {
    testResults: { assertionResults: { fullName: string; status: string }[] }[];
  };
  return Object.fromEntries(
    report.testResults.flatMap((result) =>
      result.assertionResults.map((test) => [test.fullName, test.status]),
    ),
  );
}

/** nodeTestResults reads node --test's TAP output: each test's name and `ok` or `not ok`. */
function nodeTestResults(tap: string): Record<string, string> {
  return Object.fromEntries(
    [...tap.matchAll(/^\s*(ok|not ok) \d+ - (.+?)(?: # .*)?$/gm)].map((match) => [
      match[2] ?? '',
      match[1] ?? '',
    ]),
  );
}

/** sorted returns the components in order, for comparisons. */
function sorted(components: readonly string[]): string[] {
  return [...components].sort();
}

const VITEST = ['node_modules/vitest/vitest.mjs', 'run', '--config', 'vitest.config.ts'];

describe('the README example, installed from the packed tarballs', () => {
  it('is the code the README shows', async () => {
    const readme = await readFile(join(WORKSPACE_ROOT, 'packages/envtest/README.md'), 'utf8');
    for (const file of ['operator.ts', 'operator.e2e.test.ts', 'vitest.config.ts']) {
      const source = await readFile(join(EXAMPLE, file), 'utf8');
      const fromImports = source.slice(source.indexOf('\nimport ') + 1).trimEnd();
      expect(readme, `README.md shows ${file} from its imports on`).toContain(fromImports);
    }
  });

  it("type-checks and builds with the user's tsc (module NodeNext, strict)", () => {
    expect(built.stdout + built.stderr).toBe('');
    expect(built.status).toBe(0);
  });

  it('(a) passes under vitest on built binaries, and leaves nothing', async () => {
    const report = join(scratch, 'a.json');
    const run = await runInProject('a', [
      process.execPath,
      ...VITEST,
      '--reporter=json',
      `--outputFile=${report}`,
      'operator',
      'probe',
    ]);
    expect(run.result.status, run.result.stdout + run.result.stderr).toBe(0);
    const source = await readFile(join(EXAMPLE, 'operator.e2e.test.ts'), 'utf8');
    const expected = Object.fromEntries(
      testNames(source).map((name) => [`the greeting operator ${name}`, 'passed']),
    );
    expect(await vitestResults(report)).toEqual({
      ...expected,
      'reports its control plane': 'passed',
    });
    expect(run.probes).toHaveLength(1);
    expect(run.probes[0]?.components).toContain('kube-controller-manager');
    await expectNothingLeft(run.tmp);
  }, 300_000);

  it('(b) passes under vitest on a KUBEBUILDER_ASSETS directory (kube-apiserver and etcd only)', async () => {
    expect(sorted(await readdir(assets))).toEqual(
      expect.arrayContaining(['etcd', 'kube-apiserver']),
    );
    const report = join(scratch, 'b.json');
    const run = await runInProject(
      'b',
      [
        process.execPath,
        ...VITEST,
        '--reporter=json',
        `--outputFile=${report}`,
        'operator',
        'probe',
      ],
      { KUBEBUILDER_ASSETS: assets },
    );
    expect(run.result.status, run.result.stdout + run.result.stderr).toBe(0);
    const results = await vitestResults(report);
    expect(Object.values(results)).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(run.probes.map((probe) => sorted(probe.components))).toEqual([
      ['etcd', 'kube-apiserver'],
    ]);
    await expectNothingLeft(run.tmp);
  }, 300_000);

  it('(c) passes under node --test on built binaries, a control plane per file', async () => {
    const run = await runInProject('c', [
      process.execPath,
      '--test',
      '--test-reporter=tap',
      'operator.node-test.js',
      'probe.node-test.mjs',
    ]);
    expect(run.result.status, run.result.stdout + run.result.stderr).toBe(0);
    const source = await readFile(join(EXAMPLE, 'operator.node-test.ts'), 'utf8');
    const results = nodeTestResults(run.result.stdout);
    for (const name of testNames(source)) expect(results[name], name).toBe('ok');
    expect(results['reports its control plane']).toBe('ok');
    expect(Object.values(results)).not.toContain('not ok');
    expect(run.probes).toHaveLength(1);
    expect(run.probes[0]?.components).toContain('kube-controller-manager');
    await expectNothingLeft(run.tmp);
  }, 300_000);

  it('(d) passes under `k-envtest run -- node --test` on KUBEBUILDER_ASSETS, one control plane', async () => {
    const run = await runInProject(
      'd',
      [
        process.execPath,
        'node_modules/.bin/k-envtest',
        'run',
        '--',
        process.execPath,
        '--test',
        '--test-reporter=tap',
        'operator.node-test.js',
        'probe.node-test.mjs',
      ],
      { KUBEBUILDER_ASSETS: assets },
    );
    expect(run.result.status, run.result.stdout + run.result.stderr).toBe(0);
    const source = await readFile(join(EXAMPLE, 'operator.node-test.ts'), 'utf8');
    const results = nodeTestResults(run.result.stdout);
    for (const name of testNames(source)) expect(results[name], name).toBe('ok');
    expect(Object.values(results)).not.toContain('not ok');
    expect(run.probes.map((probe) => sorted(probe.components))).toEqual([
      ['etcd', 'kube-apiserver'],
    ]);
    await expectNothingLeft(run.tmp);
  }, 300_000);

  it('leaves no process, run directory or port 10 s after its vitest runner is SIGKILLed', async () => {
    const tmp = await mkdtemp(join(scratch, 'kill-'));
    const holdFile = join(scratch, 'hold.json');
    const env = userEnvironment();
    for (const [name, value] of Object.entries(
      userVariables({ TMPDIR: tmp, HOLD_FILE: holdFile }),
    )) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    const runner = spawn(process.execPath, [...VITEST, 'hold'], {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    runner.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    runner.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = once(runner, 'exit');
    running.add(() => runner.kill('SIGKILL'));
    const runnerPid = runner.pid ?? 0;

    let held: { server: string } | undefined;
    for (const started = Date.now(); !held; await sleep(200)) {
      held = await readFile(holdFile, 'utf8')
        .then((text) => JSON.parse(text) as { server: string })
        .catch(() => undefined);
      if (!held && (runner.exitCode !== null || Date.now() - started > 180_000)) {
        throw new Error(`the held test never ran: ${output}`);
      }
    }
    const descendants = descendantsOf(runnerPid);
    const ports = listeningPorts(descendants.map((stat) => stat.pid));
    const serverPort = Number(new URL(held.server).port);
    expect(ports).toContain(serverPort);
    expect(processesMentioning(tmp).length).toBeGreaterThan(0);

    runner.kill('SIGKILL');
    const killedAt = Date.now();
    await exited;
    let left: { processes: string[]; directories: string[]; ports: number[] } | undefined;
    for (;;) {
      const listening = new Set(listeningSockets().map(([, port]) => port));
      left = {
        processes: [
          ...descendants
            .filter((stat) => isAlive(stat.pid, stat.startTime))
            .map((stat) => `${stat.pid} (a descendant of the runner)`),
          ...processesMentioning(tmp),
        ],
        directories: await runDirectories(tmp),
        ports: [...ports].filter((port) => listening.has(port)),
      };
      const clean =
        left.processes.length === 0 && left.directories.length === 0 && left.ports.length === 0;
      if (clean || Date.now() - killedAt > 20_000) break;
      await sleep(100);
    }
    const cleanAfterMs = Date.now() - killedAt;
    console.log(
      `SIGKILL of vitest: ${descendants.length} descendants, clean after ${cleanAfterMs} ms`,
    );
    expect(left).toEqual({ processes: [], directories: [], ports: [] });
    expect(cleanAfterMs).toBeLessThanOrEqual(10_000);
  }, 300_000);

  it('loads in CommonJS: the root and node-test require()d, the vitest entries ESM only', async () => {
    const tmp = await mkdtemp(join(scratch, 'cjs-'));
    const result = await runCommand(process.execPath, ['cjs/check.js'], project, {
      env: userVariables({ TMPDIR: tmp }),
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      useEnvironment: 'function',
      envtestError: 'function',
      vitest: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
      globalSetup: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
      components: ['etcd', 'kube-apiserver'],
      source: 'cache',
    });
    expect(report.namespaces).toEqual(expect.arrayContaining(['default', 'kube-system']));
    expect(String(report.runDir).startsWith(tmp)).toBe(true);
    await expectNothingLeft(tmp);
  }, 120_000);
});
