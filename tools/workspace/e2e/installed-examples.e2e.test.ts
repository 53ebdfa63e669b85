import { randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
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
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// How users meet the code: every package is packed with npm and the tarballs are installed into
// an empty project outside the workspace (no tsx, no workspace links, no @k/source). Each
// package's examples/ (the examples/*.ts programs and the modules they import beside them, such
// as a k-gen client in generated/) is copied into the project's esm/ and cjs/ folders, whose
// package.json says the module type, and built there with tsc as a user builds for Node (module
// NodeNext, strict). The programs run with node against the local control plane; what they
// print is checked.

const PACKAGES = ['config', 'transport', 'rest', 'clientset', 'codegen', 'runtime'];
/**
 * What the examples need beside the packages, at the versions the workspace uses: prom-client,
 * @k/runtime's optional peer, so the runtime examples serve /metrics; tsyringe and
 * reflect-metadata for the DI path of the custom auth plugin example; Node's types for tsc.
 */
const DEPENDENCIES = ['prom-client', 'tsyringe', 'reflect-metadata', '@types/node'];
const WIDGET_CRD = join(WORKSPACE_ROOT, 'packages/clientset/e2e/fixtures/widget-crd.yaml');
const TEAM_NAMESPACES_CRD = join(
  WORKSPACE_ROOT,
  'packages/runtime/examples/team-namespaces-crd.yaml',
);
const WEBAPPS_CRD = join(WORKSPACE_ROOT, 'packages/runtime/examples/webapps-crd.yaml');

let installed: InstalledProject | undefined;
let project: string;
let scratch: string;
/** built is what tsc reported building the examples. */
let built: CommandResult;

/** compile turns a one-file program into what a user's build emits for `kind`. */
function compile(source: string, kind: ModuleKind): string {
  return ts.transpileModule(source, {
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: kind === 'esm' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS,
    },
  }).outputText;
}

/**
 * exampleFiles lists the examples, `packages/<name>/examples/*.ts`, as `<name>/<file>`: the
 * programs, not the modules in folders beside them.
 */
async function exampleFiles(): Promise<string[]> {
  const found: string[] = [];
  for (const name of PACKAGES) {
    const directory = join(WORKSPACE_ROOT, 'packages', name, 'examples');
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isFile() && entry.name.endsWith('.ts')) found.push(`${name}/${entry.name}`);
    }
  }
  return found.sort();
}

/**
 * exampleModules lists every module under `packages/<name>/examples` (the examples and what they
 * import, such as generated/'s clients) as `<name>/<path>`.
 */
async function exampleModules(): Promise<string[]> {
  const found: string[] = [];
  for (const name of PACKAGES) {
    const directory = join(WORKSPACE_ROOT, 'packages', name, 'examples');
    const files = await readdir(directory, { recursive: true }).catch(() => []);
    for (const file of files) if (file.endsWith('.ts')) found.push(`${name}/${file}`);
  }
  return found.sort();
}

/** workspaceVersion is the version of `name` the workspace has installed. */
async function workspaceVersion(name: string): Promise<string> {
  const manifest = join(WORKSPACE_ROOT, 'node_modules', name, 'package.json');
  return (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
}

beforeAll(async () => {
  installed = await installPackedPackages({
    packages: PACKAGES,
    dependencies: await Promise.all(
      DEPENDENCIES.map(async (name) => `${name}@${await workspaceVersion(name)}`),
    ),
  });
  project = installed.directory;
  expect(relative(WORKSPACE_ROOT, project).startsWith('..')).toBe(true);
  const sources: Record<string, string> = {};
  for (const module of await exampleModules()) {
    const [name = '', path = ''] = module.split(/\/(.*)/s);
    sources[module] = join(WORKSPACE_ROOT, 'packages', name, 'examples', path);
  }
  // Emitted also after a type error (the runs below still say what works), which fails the
  // test of its own.
  built = await buildUserProject(project, sources);
  scratch = await mkdtemp(join(tmpdir(), 'k-examples-'));
}, 360_000);

afterAll(async () => {
  await installed?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** exampleFile is where `<package>/<name>`'s program for `kind` is in the installed project. */
function exampleFile(example: string, kind: ModuleKind): string {
  return join(kind, `${example}.js`);
}

/** runExample runs `<package>/<name>` as a plain node program of `kind` in the project. */
function runExample(
  example: string,
  kind: ModuleKind,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<CommandResult> {
  return runCommand(process.execPath, [exampleFile(example, kind), ...args], project, {
    env: { KUBECONFIG: undefined, ...env },
  });
}

/** Programs still running at the end of a test: killed (SIGKILL) after it. */
const running = new Set<RunningCommand>();
/** Cleanups of what a test made in the cluster, run after it (after the programs are killed). */
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const example of running) example.child.kill('SIGKILL');
  running.clear();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * startExample starts `<package>/<name>` as a plain node program of `kind` in the installed
 * project, in the user's environment without KUBECONFIG; it runs until the test stops it.
 */
function startExample(example: string, kind: ModuleKind, args: readonly string[]): RunningCommand {
  const started = startCommand(process.execPath, [exampleFile(example, kind), ...args], project, {
    env: { KUBECONFIG: undefined },
  });
  running.add(started);
  return started;
}

/** logLines parses what the Manager's default logger wrote: one JSON object per line. */
function logLines(stderr: string): { level?: string; msg?: string }[] {
  return stderr
    .trim()
    .split('\n')
    .map((line) => {
      try {
        return JSON.parse(line) as { level?: string; msg?: string };
      } catch {
        throw new Error(`a line on stderr is not JSON: ${line}`);
      }
    });
}

/** kubectl runs kubectl as the control plane's admin and returns its stdout; throws if it fails. */
function kubectl(...args: string[]): Promise<string> {
  return kubectlWith(['--context', 'admin', ...args], controlPlane().kubeconfigPath);
}

/** KubeObject is the part of an object the runtime examples' checks read. */
interface KubeObject {
  metadata: {
    finalizers?: string[];
    ownerReferences?: { kind: string; name: string; controller?: boolean }[];
  };
  data?: Record<string, string>;
  subjects?: { name: string }[];
  status?: { conditions?: { type: string; status: string; reason: string }[] };
}

/** getObject reads an object with kubectl: undefined when there is none. */
async function getObject(...args: string[]): Promise<KubeObject | undefined> {
  const text = await kubectl('get', ...args, '--ignore-not-found', '--output=json');
  return text.trim() ? (JSON.parse(text) as KubeObject) : undefined;
}

let teamNamespacesCrd: Promise<unknown> | undefined;

/**
 * installTeamNamespacesCrd applies runtime/team-namespaces's CRD once and waits until it is
 * served. It is left installed: packages/runtime/e2e/team-namespaces-example.e2e.test.ts may run
 * at the same time with the same cluster-scoped CRD, and deleting it would delete its
 * TeamNamespaces (the control plane is discarded after the run).
 */
function installTeamNamespacesCrd(): Promise<unknown> {
  teamNamespacesCrd ??= (async () => {
    await kubectl(
      'apply',
      '--server-side',
      '--field-manager=k-installed-examples',
      '-f',
      TEAM_NAMESPACES_CRD,
    );
    await kubectl(
      'wait',
      '--for=condition=Established',
      '--timeout=30s',
      'crd/teamnamespaces.k.example',
    );
  })();
  return teamNamespacesCrd;
}

/** kubeconfigCopy is a copy of the control plane's kubeconfig the example may edit. */
async function kubeconfigCopy(): Promise<string> {
  const directory = await mkdtemp(join(scratch, 'kubeconfig-'));
  const path = join(directory, 'config');
  await copyFile(controlPlane().kubeconfigPath, path);
  return path;
}

/** freePort is a TCP port on 127.0.0.1 nothing listens on (for a server that must know its URL first). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** WebApp is what runtime/webhooks's checks read of its kind, in either version. */
interface WebApp {
  apiVersion: string;
  spec?: { image?: string; replicas?: number; instances?: number };
}

/** Each example and how the test runs it; a new example without an entry fails the suite. */
const EXAMPLES = [
  'clientset/configmaps.ts',
  'clientset/custom-auth-plugin.ts',
  'codegen/generate-crd-client.ts',
  'config/show-current-context.ts',
  'rest/configmap-round-trip.ts',
  'runtime/configmap-mirror.ts',
  'runtime/team-namespaces.ts',
  'runtime/webhooks.ts',
  'transport/request-logging.ts',
];

it('has a run below for every example in packages/*/examples', async () => {
  expect(await exampleFiles()).toEqual(EXAMPLES);
});

it('builds every example with tsc against the installed packages, as ESM and CommonJS', () => {
  expect(built.stdout + built.stderr).toBe('');
  expect(built.status).toBe(0);
});

describe.each(MODULE_KINDS)(
  'the examples as plain %s programs on the installed packages',
  (kind) => {
    const namespace = useTestNamespace();

    it('config/show-current-context prints the current context and switches it', async () => {
      const kubeconfig = await kubeconfigCopy();
      const shown = await runExample('config/show-current-context', kind, [], {
        KUBECONFIG: kubeconfig,
      });
      expect(shown, shown.stderr).toMatchObject({ status: 0, stderr: '' });
      expect(JSON.parse(shown.stdout)).toMatchObject({
        context: 'admin',
        server: controlPlane().server,
        auth: 'none',
      });
      const switched = await runExample('config/show-current-context', kind, ['--use', 'tester'], {
        KUBECONFIG: kubeconfig,
      });
      expect(switched, switched.stderr).toMatchObject({ status: 0, stderr: '' });
      expect(switched.stdout).toContain(`switched to "tester" in ${kubeconfig}`);
      expect(switched.stdout).toContain('"auth": "token"');
    });

    it('transport/request-logging logs each request through its interceptors', async () => {
      const token = controlPlane().users.tester.token;
      const result = await runExample('transport/request-logging', kind, [
        `--kubeconfig=${controlPlane().kubeconfigPath}`,
        '--context=tester',
      ]);
      expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' });
      const lines = result.stdout.trim().split('\n');
      expect(lines[0]).toBe(
        'stack: request-id → user-agent → auth → compression → request-logger → pool',
      );
      expect(lines[1]).toMatch(
        /^→ GET \/version \{x-request-id: [0-9a-f-]{36}, .*authorization: \[redacted\]/,
      );
      expect(lines[2]).toMatch(/^← 200 GET \/version \d+ bytes flowschema-uid=[0-9a-f-]{36}$/);
      expect(lines[3]).toMatch(/^server version v1\.\d+\.\d+/);
      expect(lines[5]).toMatch(
        /^← 201 POST \/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews \d+ bytes flowschema-uid=[0-9a-f-]{36}$/,
      );
      expect(lines[6]).toBe('authenticated as tester');
      expect(result.stdout).not.toContain(token);
    });

    it('rest/configmap-round-trip creates, updates, watches and deletes a ConfigMap', async () => {
      const result = await runExample('rest/configmap-round-trip', kind, [
        `--kubeconfig=${controlPlane().kubeconfigPath}`,
        '--context=admin',
        `--namespace=${namespace.name}`,
      ]);
      expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' });
      expect(result.stdout.trim().split('\n')).toEqual([
        `created configmap ${namespace.name}/k-example-rest`,
        'watch: MODIFIED k-example-rest {"greeting":"hello again"}',
        'watch: DELETED k-example-rest {"greeting":"hello again"}',
        'configmap k-example-rest is gone',
      ]);
    });

    it('clientset/configmaps applies, reads, lists and deletes with the typed client', async () => {
      const result = await runExample('clientset/configmaps', kind, [
        `--kubeconfig=${controlPlane().kubeconfigPath}`,
        '--context=admin',
        `--namespace=${namespace.name}`,
      ]);
      expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' });
      expect(result.stdout.trim().split('\n')).toEqual([
        `applied ${namespace.name}/k-example-clientset`,
        'read greeting=hello',
        'listed k-example-clientset',
        'deleted, gone=true',
        'get after delete: not found',
      ]);
    });

    it('clientset/custom-auth-plugin authenticates through its plugin, by hand and by DI', async () => {
      const { server, caPem, users } = controlPlane();
      const kubeconfig = join(await mkdtemp(join(scratch, 'plugin-')), 'config');
      // A user served by the example's `env-token` plugin.
      await writeFile(
        kubeconfig,
        singleContextKubeconfig(
          { server, caPem },
          'plugin-user',
          { 'auth-provider': { name: 'env-token', config: { variable: 'K_EXAMPLE_TOKEN' } } },
          'plugin',
        ),
      );
      const env = { K_EXAMPLE_TOKEN: users.tester.token };
      for (const args of [[], ['--di']]) {
        const result = await runExample(
          'clientset/custom-auth-plugin',
          kind,
          [`--kubeconfig=${kubeconfig}`, ...args],
          env,
        );
        expect(result, result.stderr).toMatchObject({
          status: 0,
          stdout: 'authenticated as tester\n',
        });
      }
      const unset = await runExample(
        'clientset/custom-auth-plugin',
        kind,
        [`--kubeconfig=${kubeconfig}`],
        {
          K_EXAMPLE_TOKEN: undefined,
        },
      );
      expect(unset.status).toBe(1);
      expect(unset.stderr).toContain('K_EXAMPLE_TOKEN is not set');
    });

    it("loads child_process only once an exec credential plugin runs, and never undici's index", async () => {
      const { server, caPem, users } = controlPlane();
      const directory = await mkdtemp(join(scratch, 'exec-'));
      const plugin = join(directory, 'plugin.cjs');
      await writeFile(
        plugin,
        `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: process.env.K_EXEC_TOKEN } }));\n`,
      );
      const kubeconfig = join(directory, 'config');
      await writeFile(
        kubeconfig,
        singleContextKubeconfig({ server, caPem }, 'exec-user', {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: process.execPath,
            args: [plugin],
            env: [{ name: 'K_EXEC_TOKEN', value: users.tester.token }],
            interactiveMode: 'Never',
          },
        }),
      );
      // @k/transport loads only the parts of undici it sends with (src/transport/undici-parts.ts).
      const body = `const loaded = () => process.moduleLoadList.includes('NativeModule child_process');
const atImport = loaded();
const clientset = await inferClientset();
const review = await clientset.authenticationV1.selfSubjectReviews().create({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
const { createRequire } = await import('node:module');
const undiciIndex = Object.keys(createRequire(process.cwd() + '/').cache).some((file) => file.endsWith('/undici/index.js'));
console.log(JSON.stringify({ atImport, afterPlugin: loaded(), user: review.status?.userInfo?.username, undiciIndex }));
`;
      const file = join(project, `exec-child-process.${kind === 'esm' ? 'mjs' : 'cjs'}`);
      await writeFile(
        file,
        kind === 'esm'
          ? `import { inferClientset } from '@k/clientset';\n${body}`
          : `const { inferClientset } = require('@k/clientset');\n(async () => {\n${body}})();\n`,
      );
      const result = await runCommand(process.execPath, [file], project, {
        env: { KUBECONFIG: kubeconfig },
      });
      expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' });
      expect(JSON.parse(result.stdout)).toEqual({
        atImport: false,
        afterPlugin: true,
        user: 'tester',
        undiciIndex: false,
      });
    });

    describe('with a second namespace', () => {
      const target = useTestNamespace({ prefix: 'mirror-target' });

      it('runtime/configmap-mirror mirrors a labelled ConfigMap into the target namespace, deletes the mirror with it (finalizer) and stops on SIGTERM', async () => {
        const example = startExample('runtime/configmap-mirror', kind, [
          `--kubeconfig=${controlPlane().kubeconfigPath}`,
          '--context=admin',
          `--target-namespace=${target.name}`,
          '--port=0',
          '--metrics-port=0',
        ]);
        await example.waitForStdout(/listening probes \S+/);
        const [, metrics] = await example.waitForStdout(/listening metrics (\S+)/);
        await kubectl(
          '-n',
          namespace.name,
          'create',
          'configmap',
          'greeting',
          '--from-literal=hello=world',
        );
        await kubectl(
          '-n',
          namespace.name,
          'label',
          'configmap',
          'greeting',
          'k-example/mirror=true',
        );
        const mirror = `${namespace.name}.greeting`;
        await eventually(async () =>
          expect(await getObject('configmap', mirror, '-n', target.name)).toMatchObject({
            data: { hello: 'world' },
          }),
        );
        expect(await getObject('configmap', 'greeting', '-n', namespace.name)).toMatchObject({
          metadata: { finalizers: ['k.example/mirror'] },
        });
        // prom-client, the optional peer, found by the installed @k/runtime.
        expect(await (await fetch(`${metrics}/metrics`)).text()).toMatch(
          /controller_runtime_reconcile_total\{controller="configmap-mirror",result="success"\} [1-9]/,
        );

        // kubectl waits until the source is gone: its finalizer goes after the mirror did.
        await kubectl('-n', namespace.name, 'delete', 'configmap', 'greeting', '--timeout=30s');
        expect(await getObject('configmap', mirror, '-n', target.name)).toBeUndefined();

        const exit = await example.stop();
        expect(exit, exit.stderr).toMatchObject({ status: 0, signal: null });
        expect(exit.stdout.trim().split('\n').at(-1)).toBe('stopped');
        const lines = logLines(exit.stderr);
        expect(lines.map((line) => line.msg)).toContain('controller started');
        expect(lines.filter((line) => line.level === 'error')).toEqual([]);
      });
    });

    it('runtime/team-namespaces makes the Namespace of a TeamNamespace (cluster-scoped, its k-gen client) and reports it Ready', async () => {
      await installTeamNamespacesCrd();
      const name = `tns-${namespace.name}`;
      cleanups.push(async () => {
        await kubectl('delete', 'teamnamespace', name, '--ignore-not-found', '--wait=false');
        // Deleted rather than left to the garbage collector, which learns a new kind late.
        await kubectl('delete', 'namespace', name, '--ignore-not-found', '--wait=false');
      });
      const example = startExample('runtime/team-namespaces', kind, [
        `--kubeconfig=${controlPlane().kubeconfigPath}`,
        '--context=admin',
        `--lease-namespace=${namespace.name}`,
        '--port=0',
        '--metrics-port=0',
      ]);
      await example.waitForStdout(/listening probes \S+/);
      const manifest = join(scratch, `${name}.json`);
      await writeFile(
        manifest,
        JSON.stringify({
          apiVersion: 'k.example/v1',
          kind: 'TeamNamespace',
          metadata: { name },
          spec: { owners: ['alice'] },
        }),
      );
      await kubectl('create', '-f', manifest);
      await eventually(async () =>
        expect(await getObject('teamnamespace', name)).toMatchObject({
          status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Provisioned' }] },
        }),
      );
      expect(await getObject('namespace', name)).toMatchObject({
        metadata: { ownerReferences: [{ kind: 'TeamNamespace', name, controller: true }] },
      });
      expect(await getObject('rolebinding', 'team-owners', '-n', name)).toMatchObject({
        subjects: [{ name: 'alice' }],
      });

      const exit = await example.stop();
      expect(exit, exit.stderr).toMatchObject({ status: 0, signal: null });
      expect(exit.stdout.trim().split('\n').at(-1)).toBe('stopped');
      const lines = logLines(exit.stderr);
      expect(lines.map((line) => line.msg)).toContain('leading; starting controllers');
      expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    });

    it('runtime/webhooks validates, defaults and converts WebApps for the real kube-apiserver, and stops on SIGTERM', async () => {
      // A group of its own, so runs and module kinds never share the cluster-scoped CRD or configurations.
      const group = `g${randomUUID().slice(0, 8)}.webhooks.k.example`;
      const crd = join(scratch, `${group}.yaml`);
      await writeFile(
        crd,
        (await readFile(WEBAPPS_CRD, 'utf8')).replaceAll('webhooks.k.example', group),
      );
      cleanups.push(async () => {
        for (const resource of ['validatingwebhookconfiguration', 'mutatingwebhookconfiguration']) {
          await kubectl('delete', resource, `webapps.${group}`, '--ignore-not-found');
        }
        await kubectl('delete', 'crd', `webapps.${group}`, '--ignore-not-found', '--wait=false');
      });
      await kubectl('apply', '--server-side', '--field-manager=k-installed-examples', '-f', crd);
      await kubectl('wait', '--for=condition=Established', '--timeout=30s', `crd/webapps.${group}`);
      const port = await freePort();
      const example = startExample('runtime/webhooks', kind, [
        `--kubeconfig=${controlPlane().kubeconfigPath}`,
        '--context=admin',
        `--webhook-port=${port}`,
        `--namespace=${namespace.name}`,
        `--group=${group}`,
        '--port=0',
        '--metrics-port=0',
      ]);
      await example.waitForStdout(/webhooks installed/);
      await example.waitForStdout(new RegExp(`listening webhook https://127\\.0\\.0\\.1:${port}`));

      /** create runs `kubectl create` of a WebApp in the test's namespace (extra flags after it). */
      let created = 0;
      const create = async (version: string, spec: WebApp['spec'], ...flags: string[]) => {
        created += 1;
        const name = `webapp-${created}`;
        const file = join(scratch, `${group}-${name}.json`);
        await writeFile(
          file,
          JSON.stringify({
            apiVersion: `${group}/${version}`,
            kind: 'WebApp',
            metadata: { name },
            spec,
          }),
        );
        const result = await runCommand(
          'kubectl',
          ['--context', 'admin', '-n', namespace.name, 'create', ...flags, '-f', file],
          project,
          { env: { KUBECONFIG: controlPlane().kubeconfigPath } },
        );
        return { name, result };
      };
      const get = async (version: string, name: string): Promise<WebApp> =>
        JSON.parse(
          await kubectl(
            '-n',
            namespace.name,
            'get',
            `webapps.${version}.${group}`,
            name,
            '-o',
            'json',
          ),
        ) as WebApp;

      // kube-apiserver loads new configurations a moment later: probed by dry-run, which stores nothing.
      await eventually(async () => {
        const { result } = await create(
          'v1',
          { image: 'nginx:1.27', replicas: 11 },
          '--dry-run=server',
        );
        expect(result.stderr).toContain('The request is invalid');
      });
      const refused = await create('v1', { image: 'nginx:1.27', replicas: 11 });
      expect(refused.result.status).not.toBe(0);
      expect(refused.result.stderr).toContain(
        'The request is invalid: spec.replicas: must be at most 10',
      );

      // The mutating webhook defaults the replicas; the validating one warns of the missing tag.
      await eventually(async () => {
        const { name, result } = await create('v1', { image: 'nginx' });
        expect(result.status, result.stderr).toBe(0);
        expect(result.stderr).toContain('Warning: image nginx has no tag');
        expect((await get('v1', name)).spec).toEqual({ image: 'nginx', replicas: 1 });
      });

      // Written as v1alpha1, stored as v1 (the hub) by the conversion webhook, read back as either.
      const alpha = await eventually(async () => {
        const { name, result } = await create('v1alpha1', { image: 'nginx:1.27', instances: 3 });
        expect(result.status, result.stderr).toBe(0);
        return name;
      });
      expect(await get('v1', alpha)).toMatchObject({
        apiVersion: `${group}/v1`,
        spec: { image: 'nginx:1.27', replicas: 3 },
      });
      expect(await get('v1alpha1', alpha)).toMatchObject({
        apiVersion: `${group}/v1alpha1`,
        spec: { image: 'nginx:1.27', instances: 3 },
      });

      const exit = await example.stop();
      expect(exit, exit.stderr).toMatchObject({ status: 0, signal: null });
      expect(exit.stdout.trim().split('\n').at(-1)).toBe('stopped');
      expect(logLines(exit.stderr).filter((line) => line.level === 'error')).toEqual([]);
    });

    it('codegen/generate-crd-client generates the Widget modules in memory', async () => {
      const result = await runExample('codegen/generate-crd-client', kind, [WIDGET_CRD]);
      expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' });
      const lines = result.stdout.trim().split('\n');
      expect(lines.map((line) => basename(line.split(':')[0] ?? ''))).toEqual([
        'widget-v1.ts',
        'widget-v1beta1.ts',
      ]);
      expect(lines[0]).toMatch(
        /^src\/generated\/widget-v1\.ts: Widget, WidgetSpec, .*createWidgetsClient/,
      );
    });
  },
);

/**
 * A program on the installed packages that reads a kubeconfig and parses manifests, then reports
 * which files of the yaml package it loaded and how that package's guards see @k/config's
 * documents (and @k/config's guards the package's). @k/config carries its own yaml
 * (docs/decisions/0015).
 */
const YAML_PROBE = `
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { parseKubeconfig } from '@k/config';
import { aliasesRepeatTooMuch } from '@k/config/yaml-guards';
import { parseManifests } from '@k/clientset';

async function main(): Promise<void> {
  const cache = createRequire(join(process.cwd(), 'probe.js')).cache;
  const yamlFiles = () =>
    Object.keys(cache).filter((file) => file.includes(sep + join('node_modules', 'yaml') + sep));
  const file = parseKubeconfig('# kept\\napiVersion: v1\\nkind: Config\\nclusters: [{name: c, cluster: {server: "https://h"}}]\\n');
  const manifests = await parseManifests('apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: a}\\n');
  const loaded = yamlFiles().length;
  const yaml = await import('yaml');
  console.log(JSON.stringify({
    loaded,
    manifests: manifests.length,
    isDocument: yaml.isDocument(file.document),
    isMap: yaml.isMap(file.document.contents),
    text: yaml.stringify(file.document),
    guards: aliasesRepeatTooMuch(yaml.parseDocument('a: &a [1, 2]\\nb: [*a, *a]\\n'), 3),
  }));
}

void main();
`;

describe.each(MODULE_KINDS)('the yaml @k/config carries, in a plain %s program', (kind) => {
  it('loads no file of the yaml package, and each copy recognises the other’s documents', async () => {
    const file = `yaml-probe.${kind === 'esm' ? 'mjs' : 'cjs'}`;
    await writeFile(join(project, file), compile(YAML_PROBE, kind));
    const result = await runCommand(process.execPath, [file], project);
    expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({
      loaded: 0,
      manifests: 1,
      isDocument: true,
      isMap: true,
      text: '# kept\napiVersion: v1\nkind: Config\nclusters: [ { name: c, cluster: { server: "https://h" } } ]\n',
      guards: true,
    });
  });
});
