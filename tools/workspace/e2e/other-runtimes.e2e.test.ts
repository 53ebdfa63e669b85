import { ensureRuntime } from '@k/runtimes';
import {
  buildUserProject,
  eventually,
  installPackedPackages,
  kubectl as kubectlWith,
  MODULE_KINDS,
  runCommand,
  singleContextKubeconfig,
  startCommand,
  WORKSPACE_ROOT,
  type CommandResult,
  type InstalledProject,
  type ModuleKind,
  type RunningCommand,
} from '@k/test-utils';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// k's public API on Bun and Deno, as their users meet it: the packages are packed and installed
// into an empty project outside the workspace, the smoke programs of runtime-smoke/ are built
// there with tsc (NodeNext, strict) as ESM and as CommonJS, and each runs under the runtime
// (installed by @k/runtimes at its pinned version) against the real control plane. Node runs the
// same packages in installed-examples.e2e.test.ts.

const PACKAGES = ['config', 'transport', 'rest', 'clientset', 'runtime'];
const SMOKE = join(WORKSPACE_ROOT, 'tools/workspace/e2e/runtime-smoke');

/** OtherRuntime is Bun or Deno, and how it runs a program of the installed project. */
interface OtherRuntime {
  name: 'bun' | 'deno';
  executable: string;
  /** args run `file` with `programArgs` (Deno: every permission, as `deno run -A`). */
  args(file: string, programArgs: readonly string[]): string[];
}

const runtimes = new Map<OtherRuntime['name'], OtherRuntime>();
let installed: InstalledProject | undefined;
let project: string;
let scratch: string;
let built: CommandResult;

/**
 * RUNTIME_ENV keeps the runtimes off the network: Bun installs nothing on its own (node_modules
 * is there), Deno checks for no update; NO_COLOR keeps their messages plain.
 */
const RUNTIME_ENV = { DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', KUBECONFIG: undefined };

beforeAll(async () => {
  const [bun, deno] = await Promise.all([ensureRuntime('bun'), ensureRuntime('deno')]);
  runtimes.set('bun', {
    name: 'bun',
    executable: bun.executable,
    args: (file, programArgs) => ['--no-install', file, ...programArgs],
  });
  runtimes.set('deno', {
    name: 'deno',
    executable: deno.executable,
    args: (file, programArgs) => ['run', '-A', file, ...programArgs],
  });
  const typesVersion = (
    JSON.parse(
      await readFile(join(WORKSPACE_ROOT, 'node_modules/@types/node/package.json'), 'utf8'),
    ) as { version: string }
  ).version;
  installed = await installPackedPackages({
    packages: PACKAGES,
    dependencies: [`@types/node@${typesVersion}`],
  });
  project = installed.directory;
  const programs = (await readdir(SMOKE)).filter((file) => file.endsWith('.ts'));
  built = await buildUserProject(
    project,
    Object.fromEntries(programs.map((program) => [program, join(SMOKE, program)])),
  );
  scratch = await mkdtemp(join(tmpdir(), 'k-other-runtimes-'));
}, 600_000);

afterAll(async () => {
  await installed?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Programs still running at the end of a test: killed (SIGKILL) after it. */
const running = new Set<RunningCommand>();

afterEach(() => {
  for (const program of running) program.child.kill('SIGKILL');
  running.clear();
});

function runtime(name: OtherRuntime['name']): OtherRuntime {
  const found = runtimes.get(name);
  if (!found) throw new Error(`${name} was not installed`);
  return found;
}

/** smoke runs the smoke program `name` of `kind` under `runtime` in the installed project. */
function smoke(
  on: OtherRuntime,
  kind: ModuleKind,
  name: string,
  args: readonly string[],
): Promise<CommandResult> {
  return runCommand(on.executable, on.args(join(kind, `${name}.js`), args), project, {
    env: RUNTIME_ENV,
  });
}

/** printed is the one JSON line a smoke program printed, after checking that it succeeded. */
function printed(result: CommandResult): unknown {
  expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' });
  return JSON.parse(result.stdout) as unknown;
}

/** kubectl runs kubectl as the control plane's admin and returns its stdout; throws if it fails. */
function kubectl(...args: string[]): Promise<string> {
  return kubectlWith(['--context', 'admin', ...args], controlPlane().kubeconfigPath);
}

/**
 * execPluginKubeconfig writes a kubeconfig (context `test`) whose user gets tester's token from an
 * exec credential plugin, a shell script.
 */
async function execPluginKubeconfig(): Promise<string> {
  const { server, caPem, users } = controlPlane();
  const directory = await mkdtemp(join(scratch, 'exec-'));
  const plugin = join(directory, 'plugin.sh');
  await writeFile(
    plugin,
    `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$K_SMOKE_TOKEN"\n`,
  );
  await chmod(plugin, 0o700);
  const kubeconfig = join(directory, 'config');
  await writeFile(
    kubeconfig,
    singleContextKubeconfig({ server, caPem }, 'exec-user', {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: plugin,
        env: [{ name: 'K_SMOKE_TOKEN', value: users.tester.token }],
        interactiveMode: 'Never',
      },
    }),
  );
  return kubeconfig;
}

it('builds the smoke programs with tsc against the installed packages, as ESM and CommonJS', () => {
  expect(built.stdout + built.stderr).toBe('');
  expect(built.status).toBe(0);
});

const CASES = (['bun', 'deno'] as const).flatMap((name) =>
  MODULE_KINDS.map((kind) => [name, kind] as const),
);

describe.each(CASES)('on %s, as %s', (name, kind) => {
  const namespace = useTestNamespace({ prefix: `${name}-${kind}` });
  const connection = () => [
    `--kubeconfig=${controlPlane().kubeconfigPath}`,
    `--namespace=${namespace.name}`,
  ];

  it('loads the kubeconfig (@k/config), GETs, LISTs and watches until its own create (@k/rest)', async () => {
    const result = await smoke(runtime(name), kind, 'config-rest', [
      ...connection(),
      '--context=admin',
    ]);
    expect(printed(result)).toEqual({
      server: controlPlane().server,
      version: expect.stringMatching(/^v1\.\d+\.\d+/) as unknown,
      listed: expect.any(Number) as unknown,
      watched: 'ADDED',
    });
  });

  it('authenticates over TLS with a client certificate (@k/transport)', async () => {
    const result = await smoke(runtime(name), kind, 'transport', [
      ...connection(),
      '--context=alice',
    ]);
    expect(printed(result)).toEqual({
      auth: 'none',
      clientCertificate: true,
      status: 201,
      user: 'alice',
    });
  });

  it('authenticates with an exec credential plugin (@k/transport)', async () => {
    const kubeconfig = await execPluginKubeconfig();
    const result = await smoke(runtime(name), kind, 'transport', [
      `--kubeconfig=${kubeconfig}`,
      '--context=test',
    ]);
    expect(printed(result)).toEqual({
      auth: 'exec',
      clientCertificate: false,
      status: 201,
      user: 'tester',
    });
  });

  it('creates, gets, updates, applies and deletes with the typed client (@k/clientset)', async () => {
    const result = await smoke(runtime(name), kind, 'clientset', [
      ...connection(),
      '--context=admin',
    ]);
    expect(printed(result)).toEqual({
      steps: ['created', 'created', 'updated', 'applied'],
      managers: expect.arrayContaining(['k-smoke']) as unknown,
      deleted: true,
      gone: true,
    });
  });

  it('syncs an informer and sees a create in its cache (@k/runtime)', async () => {
    const result = await smoke(runtime(name), kind, 'informer', [
      ...connection(),
      '--context=admin',
    ]);
    expect(printed(result)).toEqual({ synced: true, event: 'added', cached: 'smoke-informed' });
  });

  it('runs a Manager whose controller reconciles, serves /healthz and stops on SIGTERM with exit code 0 (@k/runtime)', async () => {
    const on = runtime(name);
    const manager = startCommand(
      on.executable,
      on.args(join(kind, 'manager.js'), [...connection(), '--context=admin']),
      project,
      { env: RUNTIME_ENV },
    );
    running.add(manager);

    const [, probes = ''] = await manager.waitForStdout(/listening probes (\S+)/);
    await kubectl('-n', namespace.name, 'create', 'configmap', 'source');
    await kubectl('-n', namespace.name, 'label', 'configmap', 'source', 'k-smoke=reconcile');
    await manager.waitForStdout(/reconciled source/);
    expect(
      JSON.parse(
        await kubectl('-n', namespace.name, 'get', 'configmap', 'source.reconciled', '-o', 'json'),
      ),
    ).toMatchObject({ data: { from: 'smoke' } });
    const healthz = await fetch(`${probes}/healthz`);
    expect(healthz.status).toBe(200);
    await eventually(async () => expect((await fetch(`${probes}/readyz`)).status).toBe(200));

    const exit = await manager.stop();
    expect({ status: exit.status, signal: exit.signal }, exit.stderr).toEqual({
      status: 0,
      signal: null,
    });
    expect(exit.stdout.trim().split('\n').at(-1)).toBe('stopped');
    const levels = exit.stderr
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { level?: string }).level);
    expect(levels).not.toContain('error');
  });

  it('execs into a Pod over a WebSocket: stdin, stdout, stderr and the exit code (@k/clientset)', async () => {
    // No kubelet runs here: kwok's Exec object runs the Pod's commands on this machine, in
    // workDir (as packages/clientset/e2e/exec-attach.e2e.test.ts does).
    const workDir = await mkdtemp(join(scratch, 'exec-pod-'));
    const manifest = join(workDir, 'pod.json');
    await writeFile(
      manifest,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'kwok.x-k8s.io/v1alpha1',
            kind: 'Exec',
            metadata: { name: 'shell', namespace: namespace.name },
            spec: { execs: [{ local: { workDir } }] },
          },
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'shell', namespace: namespace.name },
            spec: { containers: [{ name: 'main', image: 'registry.invalid/app:1' }] },
          },
        ],
      }),
    );
    await kubectl('create', '-f', manifest);
    // kwok picks the Exec object up within about a second: kubectl's exec tells when.
    await eventually(() => kubectl('-n', namespace.name, 'exec', 'shell', '--', 'true'), 60_000);
    const result = await smoke(runtime(name), kind, 'exec', [
      ...connection(),
      '--context=admin',
      '--pod=shell',
    ]);
    expect(printed(result)).toEqual({
      protocol: 'v5.channel.k8s.io',
      stdout: 'hello',
      stderr: ' to stderr\n',
      exitCode: 0,
    });
  });
});

describe('a Bun executable (bun build --compile), which carries no node_modules', () => {
  it('fails at import with ERR_TRANSPORT_UNSUPPORTED_RUNTIME, naming Bun and what is missing', async () => {
    const bun = runtime('bun');
    const executable = join(scratch, 'transport-executable');
    const compiled = await runCommand(
      bun.executable,
      ['build', join('esm', 'transport.js'), '--compile', `--outfile=${executable}`],
      project,
      { env: RUNTIME_ENV },
    );
    expect(compiled.status, compiled.stderr).toBe(0);
    const result = await runCommand(
      executable,
      [`--kubeconfig=${controlPlane().kubeconfigPath}`, '--context=admin'],
      scratch,
      { env: RUNTIME_ENV },
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('code: "ERR_TRANSPORT_UNSUPPORTED_RUNTIME"');
    expect(result.stderr).toMatch(
      /TransportError: @k\/transport cannot send on Bun \d+\.\d+\.\d+: undici's dispatcher files did not load \(Cannot find module 'undici\/lib\/dispatcher\/dispatcher\.js'/,
    );
    expect(result.stderr).toContain(
      'Bun answers "undici" with a module of its own, whose dispatchers cannot dispatch; run it where undici is installed beside @k/transport (an executable of bun build --compile carries no node_modules)',
    );
  });
});

describe('Deno with only the permissions a program asks for', () => {
  const namespace = useTestNamespace({ prefix: 'deno-permissions' });
  const NETWORK_FILES_ENVIRONMENT = ['--allow-net', '--allow-read', '--allow-env'];

  /** denoWith runs the ESM smoke program `name` under `deno run` with `permissions` only. */
  function denoWith(
    permissions: readonly string[],
    name: string,
    args: readonly string[],
  ): Promise<CommandResult> {
    return runCommand(
      runtime('deno').executable,
      ['run', ...permissions, join('esm', `${name}.js`), ...args],
      project,
      { env: RUNTIME_ENV },
    );
  }

  it('sends, watches and authenticates with a client certificate given --allow-net, --allow-read and --allow-env', async () => {
    const result = await denoWith(NETWORK_FILES_ENVIRONMENT, 'config-rest', [
      `--kubeconfig=${controlPlane().kubeconfigPath}`,
      '--context=admin',
      `--namespace=${namespace.name}`,
    ]);
    expect(printed(result)).toMatchObject({ watched: 'ADDED' });
  });

  it('runs an exec credential plugin only with --allow-run, and says so without it', async () => {
    const kubeconfig = await execPluginKubeconfig();
    const args = [`--kubeconfig=${kubeconfig}`, '--context=test'];
    const refused = await denoWith(NETWORK_FILES_ENVIRONMENT, 'transport', args);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `transport: ExecPluginError: exec: ${join(kubeconfig, '../plugin.sh')} cannot be started: Deno refuses to run it (NotCapable); run deno with --allow-run`,
    );
    const allowed = await denoWith(
      [...NETWORK_FILES_ENVIRONMENT, '--allow-run'],
      'transport',
      args,
    );
    expect(printed(allowed)).toMatchObject({ auth: 'exec', user: 'tester' });
  });
});
