import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  installPackedPackages,
  runCommand as run,
  WORKSPACE_ROOT,
  type InstalledProject,
} from '@k/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What a user installs must hold what the README sells: the @k packages are packed with npm,
// installed with npm into an empty project outside the workspace (no tsx, no workspace links),
// and the installed `k-gen` generates a client that the user's TypeScript compiles against the
// installed @k/clientset.

const PACKAGES = ['codegen', 'config', 'transport', 'rest', 'clientset'];
const FIXTURE = join(WORKSPACE_ROOT, 'packages/clientset/e2e/fixtures/widget-crd.yaml');
const COMMITTED = join(WORKSPACE_ROOT, 'packages/clientset/e2e/generated');
const TEAM_NAMESPACE_FIXTURE = join(
  WORKSPACE_ROOT,
  'packages/codegen/src/crd/__fixtures__/team-namespace-crd.yaml',
);

let project: string;
let installed: InstalledProject | undefined;

beforeAll(async () => {
  installed = await installPackedPackages({
    packages: PACKAGES,
    dependencies: ['typescript@5.9.3', '@types/node@20.19.43'],
    manifest: { type: 'module' },
  });
  project = installed.directory;
  expect(relative(WORKSPACE_ROOT, project).startsWith('..')).toBe(true);
}, 300_000);

afterAll(async () => {
  await installed?.remove();
});

describe('@k/codegen installed from its packed tarball', () => {
  it('installs every @k package from the tarballs and brings no tsx', async () => {
    const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    for (const name of PACKAGES) {
      expect(lock.packages[`node_modules/@k/${name}`]?.resolved, name).toMatch(/^file:.*\.tgz$/);
    }
    expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false);
    expect(
      existsSync(join(project, 'node_modules', '@k', 'codegen', 'dist', 'cli', 'main.js')),
    ).toBe(true);
  });

  it('prints its usage and version', async () => {
    const help = await run('npx', ['--no-install', 'k-gen', '--help'], project);
    expect(help).toMatchObject({ status: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: k-gen crd <crd\.yaml>/);
    const version = await run('npx', ['--no-install', 'k-gen', '--version'], project);
    const manifest = JSON.parse(
      await readFile(join(WORKSPACE_ROOT, 'packages/codegen/package.json'), 'utf8'),
    ) as { version: string };
    expect(version).toMatchObject({ status: 0, stdout: `${manifest.version}\n` });
  });

  it('k-gen crd writes the committed Widget modules, which compile against the installed @k/clientset', async () => {
    await mkdir(join(project, 'crds'), { recursive: true });
    await copyFile(FIXTURE, join(project, 'crds', 'widget-crd.yaml'));
    const generated = await run(
      'npx',
      ['--no-install', 'k-gen', 'crd', 'crds/widget-crd.yaml', '--out', 'src/generated'],
      project,
    );
    expect(generated.status, generated.stderr).toBe(0);
    expect(generated.stderr).toContain('[k-gen] wrote src/generated/widget-v1.ts');
    const names = (await readdir(join(project, 'src', 'generated'))).sort();
    expect(names).toEqual((await readdir(COMMITTED)).sort());
    for (const name of names) {
      expect(await readFile(join(project, 'src', 'generated', name), 'utf8'), name).toBe(
        await readFile(join(COMMITTED, name), 'utf8'),
      );
    }

    await writeFile(
      join(project, 'tsconfig.json'),
      `${JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            noEmit: true,
            types: ['node'],
            // What \`tsc --init\` writes. Without it the compile also needs tsyringe, an optional
            // peer: the root declarations of @k/transport, @k/rest and @k/clientset name its
            // types until dependency injection moves to their /di subpaths (ADR 0010).
            skipLibCheck: true,
          },
          include: ['src'],
        },
        null,
        2,
      )}\n`,
    );
    // The program uses the generated types; the @ts-expect-error lines fail the compile if the
    // types were too loose (e.g. `any`) to catch the mistakes.
    await writeFile(
      join(project, 'src', 'main.ts'),
      `import type { RestClient } from '@k/clientset';
import { createWidgetsClient, widgetsResource, type Widget } from './generated/widget-v1.js';

export async function scale(rest: RestClient, name: string, replicas: number): Promise<Widget> {
  const widgets = createWidgetsClient(rest, 'default');
  const widget = await widgets.get(name);
  const color: 'red' | 'green' | 'blue' = widget.spec.color;
  // @ts-expect-error replicas is a number
  widget.spec.replicas = 'three';
  // Namespaced: without a namespace the factory takes the REST client's default one.
  createWidgetsClient(rest);
  // @ts-expect-error the namespace is a string
  createWidgetsClient(rest, 5);
  await widgets.apply(
    { apiVersion: 'k-clientset.test/v1', kind: 'Widget', metadata: { name }, spec: { color, replicas } },
    { fieldManager: 'k-gen-user' },
  );
  return await widgets.getStatus(name);
}

export const plural: 'widgets' = widgetsResource.plural;
`,
    );
    const compiled = await run('npx', ['--no-install', 'tsc', '-p', '.'], project);
    expect(compiled, 'tsc output').toMatchObject({ status: 0, stdout: '' });
  });

  it('k-gen crd --check passes on current output and fails, naming the file, once it changed', async () => {
    const check = [
      '--no-install',
      'k-gen',
      'crd',
      'crds/widget-crd.yaml',
      '--out',
      'src/generated',
    ];
    const current = await run('npx', [...check, '--check'], project);
    expect(current.status, current.stderr).toBe(0);
    const file = join(project, 'src', 'generated', 'widget-v1.ts');
    await writeFile(file, (await readFile(file, 'utf8')).replace('replicas', 'replica'));
    const stale = await run('npx', [...check, '--check'], project);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('k-gen: stale: src/generated/widget-v1.ts');
    // A changed CRD makes the output stale too.
    await writeFile(
      join(project, 'crds', 'widget-crd.yaml'),
      (await readFile(FIXTURE, 'utf8')).replace('kind: Widget', 'kind: Gizmo'),
    );
    expect((await run('npx', [...check, '--check'], project)).status).toBe(1);
  });

  it('k-gen crd names a multi-word, cluster-scoped kind in its casing, and the module compiles', async () => {
    await mkdir(join(project, 'tenancy', 'crds'), { recursive: true });
    await copyFile(TEAM_NAMESPACE_FIXTURE, join(project, 'tenancy', 'crds', 'team-namespace.yaml'));
    const generated = await run(
      'npx',
      [
        '--no-install',
        'k-gen',
        'crd',
        'tenancy/crds/team-namespace.yaml',
        '--out',
        'tenancy/generated',
      ],
      project,
    );
    expect(generated.status, generated.stderr).toBe(0);
    await writeFile(
      join(project, 'tenancy', 'tsconfig.json'),
      `${JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
          skipLibCheck: true, // as in the Widget test above
        },
        include: ['.'],
      })}\n`,
    );
    await writeFile(
      join(project, 'tenancy', 'main.ts'),
      `import type { RestClient } from '@k/clientset';
import {
  createTeamNamespacesClient,
  teamNamespacesResource,
  type TeamNamespacesClient,
  type TeamNamespaceStatusCondition,
} from './generated/team-namespace-v1alpha1.js';

export async function readyCondition(rest: RestClient, name: string): Promise<TeamNamespaceStatusCondition | undefined> {
  const teamNamespaces: TeamNamespacesClient = createTeamNamespacesClient(rest);
  // @ts-expect-error cluster-scoped: the factory takes no namespace
  createTeamNamespacesClient(rest, 'default');
  const teamNamespace = await teamNamespaces.get(name);
  const conditions: TeamNamespaceStatusCondition[] = teamNamespace.status?.conditions ?? [];
  return conditions.find((condition) => condition.type === 'Ready');
}

export const namespaced: false = teamNamespacesResource.namespaced;
`,
    );
    const compiled = await run('npx', ['--no-install', 'tsc', '-p', 'tenancy'], project);
    expect(compiled, 'tsc output').toMatchObject({ status: 0, stdout: '' });
  });

  it('the installed k-config runs its built JavaScript too', async () => {
    const help = await run('npx', ['--no-install', 'k-config', '--help'], project);
    expect(help).toMatchObject({ status: 0, stderr: '' });
    expect(help.stdout).toMatch(/^k-config: view and change kubeconfig files/);
  });
});
