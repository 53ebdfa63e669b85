import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  nx?: { tags?: string[] };
}

function manifests(): { directory: string; manifest: Manifest }[] {
  return ['packages', 'apps', 'tools'].flatMap((group) => {
    let entries: string[] = [];
    try {
      entries = readdirSync(join(root, group));
    } catch {
      return [];
    }
    return entries.map((name) => {
      const directory = join(root, group, name);
      return {
        directory,
        manifest: JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as Manifest,
      };
    });
  });
}

async function lintAs(
  file: string,
  code: string,
  rule = '@nx/enforce-module-boundaries',
): Promise<string[]> {
  // The probe files do not exist, so type-aware parsing is off; the boundary rule needs none.
  const eslint = new ESLint({ cwd: root, overrideConfig: [tseslint.configs.disableTypeChecked] });
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === rule)
    .map((message) => message.message);
}

// The first lint builds the Nx project graph: seconds on two busy cores.
describe('layer boundaries', { timeout: 30_000 }, () => {
  it('stops a lower layer from importing a higher one', async () => {
    const messages = await lintAs(
      'packages/config/src/boundary-probe.ts',
      "export { CREDENTIAL_PROVIDER_FACTORY } from '@k/transport';\n",
    );
    // @k/transport already depends on @k/config, so the rule reports the cycle this would make.
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^Circular dependency between "@k\/config" and "@k\/transport"/);
  });

  it('stops a layer from importing a project its tags do not allow', async () => {
    const messages = await lintAs(
      'packages/config/src/boundary-probe.ts',
      "export { startControlPlane } from '@k/testenv';\n",
    );
    expect(messages).toEqual([
      'A project tagged with "layer:config" can only depend on libs tagged with "layer:config"',
    ]);
  });

  it('lets a higher layer import a lower one', async () => {
    const messages = await lintAs(
      'packages/transport/src/boundary-probe.ts',
      "export { loadKubeconfig } from '@k/config';\n",
    );
    expect(messages).toEqual([]);
  });

  it('keeps tools out of library code but allows them in tests', async () => {
    const code = "export { startControlPlane } from '@k/testenv';\n";
    expect(await lintAs('packages/transport/src/boundary-probe.ts', code)).toHaveLength(1);
    expect(await lintAs('packages/transport/e2e/boundary-probe.e2e.test.ts', code)).toEqual([]);
  });

  it('lets the runtime, apps and tools test with @k/envtest, and no lower layer', async () => {
    const code = "export { startEnvironment } from '@k/envtest';\n";
    // @k/envtest depends on @k/clientset: a lower layer's test importing it would be a cycle.
    expect(await lintAs('packages/clientset/e2e/boundary-probe.e2e.test.ts', code)).toHaveLength(1);
    expect(await lintAs('packages/runtime/e2e/boundary-probe.e2e.test.ts', code)).toEqual([]);
    expect(await lintAs('apps/demo-operator/e2e/boundary-probe.e2e.test.ts', code)).toEqual([]);
    expect(await lintAs('packages/runtime/src/boundary-probe.ts', code)).toEqual([
      'A project tagged with "layer:runtime" can only depend on libs tagged with "layer:config", "layer:transport", "layer:rest", "layer:clientset", "layer:runtime"',
    ]);
  });

  it("keeps the runtime's and the demo's e2e tests on @k/envtest's public API", async () => {
    const code = "export { startControlPlane } from '@k/testenv';\n";
    for (const file of [
      'packages/runtime/e2e/boundary-probe.e2e.test.ts',
      'apps/demo-operator/e2e/boundary-probe.e2e.test.ts',
    ]) {
      expect(await lintAs(file, code, 'no-restricted-imports'), file).toHaveLength(1);
    }
    expect(
      await lintAs('packages/rest/e2e/boundary-probe.e2e.test.ts', code, 'no-restricted-imports'),
    ).toEqual([]);
  });

  it('keeps @k/envtest off @k/runtime, so the runtime can test with it', async () => {
    const messages = await lintAs(
      'packages/envtest/src/boundary-probe.ts',
      "export { Manager } from '@k/runtime';\n",
    );
    expect(messages).toHaveLength(1);
  });
});

describe('package manifests', () => {
  const all = manifests();

  it('tag every project with exactly one layer or type', () => {
    for (const { manifest } of all) {
      const tags = manifest.nx?.tags ?? [];
      expect(
        tags.filter((tag) => /^(layer|type):/.test(tag)),
        manifest.name,
      ).toHaveLength(1);
    }
  });

  it('declare internal dependencies as plain version ranges of published packages', () => {
    const published = new Set(
      all.filter(({ manifest }) => !manifest.private).map(({ manifest }) => manifest.name),
    );
    for (const { manifest } of all.filter(({ manifest }) => !manifest.private)) {
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        if (!name.startsWith('@k/')) continue;
        expect(published.has(name), `${manifest.name} depends on private ${name}`).toBe(true);
        expect(range, `${manifest.name} → ${name}`).toMatch(/^\^\d+\.\d+\.\d+$/);
      }
    }
  });
});
