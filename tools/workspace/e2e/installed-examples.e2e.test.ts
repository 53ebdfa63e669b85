import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import {
  installPackedPackages,
  MODULE_KINDS,
  runCommand,
  singleContextKubeconfig,
  userEnvironment,
  WORKSPACE_ROOT,
  type CommandResult,
  type InstalledProject,
  type ModuleKind,
} from '@k/test-utils';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// How users meet the code: every package is packed with npm and the tarballs are installed into
// an empty project outside the workspace (no tsx, no workspace links, no @k/source). Each
// package's examples/*.ts is compiled to a plain .mjs and a .cjs program, as a user's build
// would, and run there with node against the local control plane; what it prints is checked.

const PACKAGES = ['config', 'transport', 'rest', 'clientset', 'codegen', 'runtime'];
/** What the DI path of the custom auth plugin example loads (the versions the workspace uses). */
const DI_DEPENDENCIES = ['tsyringe@4.10.0', 'reflect-metadata@0.2.2'];
const WIDGET_CRD = join(WORKSPACE_ROOT, 'packages/clientset/e2e/fixtures/widget-crd.yaml');

let installed: InstalledProject | undefined;
let project: string;
let scratch: string;

/** compile turns an example into the program a user's build emits for `kind`. */
function compile(source: string, kind: ModuleKind): string {
  return ts.transpileModule(source, {
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: kind === 'esm' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS,
    },
  }).outputText;
}

/** exampleFiles lists `packages/<name>/examples/*.ts` as `<name>/<file>`. */
async function exampleFiles(): Promise<string[]> {
  const found: string[] = [];
  for (const name of PACKAGES) {
    const directory = join(WORKSPACE_ROOT, 'packages', name, 'examples');
    const files = await readdir(directory).catch(() => []);
    for (const file of files) if (file.endsWith('.ts')) found.push(`${name}/${file}`);
  }
  return found.sort();
}

beforeAll(async () => {
  installed = await installPackedPackages({ packages: PACKAGES, dependencies: DI_DEPENDENCIES });
  project = installed.directory;
  expect(relative(WORKSPACE_ROOT, project).startsWith('..')).toBe(true);
  for (const example of await exampleFiles()) {
    const source = await readFile(
      join(WORKSPACE_ROOT, 'packages', example.replace('/', '/examples/')),
      'utf8',
    );
    const name = example.replace('/', '-').replace(/\.ts$/, '');
    await writeFile(join(project, `${name}.mjs`), compile(source, 'esm'));
    await writeFile(join(project, `${name}.cjs`), compile(source, 'cjs'));
  }
  scratch = await mkdtemp(join(tmpdir(), 'k-examples-'));
}, 360_000);

afterAll(async () => {
  await installed?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** runExample runs `<package>-<name>` as a plain node program of `kind` in the installed project. */
function runExample(
  example: string,
  kind: ModuleKind,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<CommandResult> {
  const file = `${example}.${kind === 'esm' ? 'mjs' : 'cjs'}`;
  return runCommand(process.execPath, [file, ...args], project, {
    env: { KUBECONFIG: undefined, ...env },
  });
}

/** kubeconfigCopy is a copy of the control plane's kubeconfig the example may edit. */
async function kubeconfigCopy(): Promise<string> {
  const directory = await mkdtemp(join(scratch, 'kubeconfig-'));
  const path = join(directory, 'config');
  await copyFile(controlPlane().kubeconfigPath, path);
  return path;
}

/** Each example and how the test runs it; a new example without an entry fails the suite. */
const EXAMPLES = [
  'clientset/configmaps.ts',
  'clientset/custom-auth-plugin.ts',
  'codegen/generate-crd-client.ts',
  'config/show-current-context.ts',
  'rest/configmap-round-trip.ts',
  'runtime/configmap-mirror.ts',
  'transport/request-logging.ts',
];

it('has a run below for every example in packages/*/examples', async () => {
  expect(await exampleFiles()).toEqual(EXAMPLES);
});

describe.each(MODULE_KINDS)(
  'the examples as plain %s programs on the installed packages',
  (kind) => {
    const namespace = useTestNamespace();

    it('config/show-current-context prints the current context and switches it', async () => {
      const kubeconfig = await kubeconfigCopy();
      const shown = await runExample('config-show-current-context', kind, [], {
        KUBECONFIG: kubeconfig,
      });
      expect(shown, shown.stderr).toMatchObject({ status: 0, stderr: '' });
      expect(JSON.parse(shown.stdout)).toMatchObject({
        context: 'admin',
        server: controlPlane().server,
        auth: 'none',
      });
      const switched = await runExample('config-show-current-context', kind, ['--use', 'tester'], {
        KUBECONFIG: kubeconfig,
      });
      expect(switched, switched.stderr).toMatchObject({ status: 0, stderr: '' });
      expect(switched.stdout).toContain(`switched to "tester" in ${kubeconfig}`);
      expect(switched.stdout).toContain('"auth": "token"');
    });

    it('transport/request-logging logs each request through its interceptors', async () => {
      const token = controlPlane().users.tester.token;
      const result = await runExample('transport-request-logging', kind, [
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
      const result = await runExample('rest-configmap-round-trip', kind, [
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
      const result = await runExample('clientset-configmaps', kind, [
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
          'clientset-custom-auth-plugin',
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
        'clientset-custom-auth-plugin',
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

    it('runtime/configmap-mirror mirrors a labelled ConfigMap and stops on SIGTERM', async () => {
      const kubeconfig = controlPlane().kubeconfigPath;
      const env = userEnvironment();
      delete env.KUBECONFIG;
      const child = spawn(
        process.execPath,
        [
          `runtime-configmap-mirror.${kind === 'esm' ? 'mjs' : 'cjs'}`,
          `--kubeconfig=${kubeconfig}`,
          '--context=admin',
          `--namespace=${namespace.name}`,
          '--port=0',
          '--metrics-port=0',
        ],
        { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const closed = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
      const printed = async (pattern: RegExp): Promise<void> => {
        for (const started = Date.now(); !pattern.test(stdout);) {
          if (Date.now() - started > 30_000 || child.exitCode !== null) {
            throw new Error(`no ${String(pattern)} in: ${stdout}${stderr}`);
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      try {
        await printed(/listening probes \S+/);
        const kubectl = ['--kubeconfig', kubeconfig, '--context', 'admin', '-n', namespace.name];
        for (const args of [
          ['create', 'configmap', 'greeting', '--from-literal=hello=world'],
          ['label', 'configmap', 'greeting', 'k-example/mirror=true'],
        ]) {
          const result = await runCommand('kubectl', [...kubectl, ...args], project);
          expect(result, result.stderr).toMatchObject({ status: 0 });
        }
        await printed(/mirrored \S+\/greeting -> greeting-copy/);
        child.kill('SIGTERM');
        const [code, signal] = await closed;
        expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
        expect(stdout.trim().split('\n').at(-1)).toBe('stopped');
      } finally {
        child.kill('SIGKILL');
      }
    });

    it('codegen/generate-crd-client generates the Widget modules in memory', async () => {
      const result = await runExample('codegen-generate-crd-client', kind, [WIDGET_CRD]);
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
