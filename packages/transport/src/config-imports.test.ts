import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Options } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageBuild from '../tsup.config.js';

/** The esbuild metafile's record of one output file's imports. */
interface Metafile {
  outputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }>;
}

/**
 * @k/transport neither reads nor writes kubeconfig files (client-go's transport knows nothing of
 * them): from @k/config its built code may import the error base only, everything else being
 * types (erased) or injected (`persistAuthProviderConfig`). This builds the package as
 * `npm run build` does, into a temporary folder, and reads what the output imports.
 */
describe("@k/transport's built code", () => {
  const outDir = mkdtempSync(join(tmpdir(), 'k-transport-build-'));
  let code: Map<string, string>;
  let metafiles: Metafile[];

  beforeAll(async () => {
    const options = packageBuild as Options;
    await build({
      ...options,
      outDir,
      dts: false,
      sourcemap: false,
      metafile: true,
      silent: true,
      config: false,
      // As the package build does for its dependencies, whatever the working directory.
      external: [/^@k\//, 'undici'],
      // Resolved from the package's own folder, as the package build resolves them.
      entry: Object.fromEntries(
        Object.entries(options.entry as Record<string, string>).map(([name, source]) => [
          name,
          join(import.meta.dirname, '..', source),
        ]),
      ),
      tsconfig: join(import.meta.dirname, '..', 'tsconfig.json'),
    });
    const files = readdirSync(outDir);
    code = new Map(
      files
        .filter((file) => /\.c?js$/.test(file))
        .map((file) => [file, readFileSync(join(outDir, file), 'utf8')]),
    );
    metafiles = files
      .filter((file) => file.startsWith('metafile-'))
      .map((file) => JSON.parse(readFileSync(join(outDir, file), 'utf8')) as Metafile);
  }, 60_000);

  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('imports only @k/config/errors from @k/config, in ESM and CommonJS', () => {
    expect([...code.keys()]).toEqual(expect.arrayContaining(['index.js', 'index.cjs']));
    expect(metafiles).toHaveLength(2);
    const imported = new Set<string>();
    for (const metafile of metafiles) {
      for (const output of Object.values(metafile.outputs)) {
        for (const entry of output.imports) {
          if (entry.external && entry.path.startsWith('@k/')) imported.add(entry.path);
        }
      }
    }
    expect([...imported]).toEqual(['@k/config/errors']);
  });

  it('names no other @k/config module anywhere in its text (static, dynamic or require)', () => {
    const specifiers = new Set<string>();
    for (const text of code.values()) {
      for (const match of text.matchAll(/["'](@k\/config[^"']*)["']/g)) specifiers.add(match[1]!);
    }
    expect([...specifiers]).toEqual(['@k/config/errors']);
  });
});
