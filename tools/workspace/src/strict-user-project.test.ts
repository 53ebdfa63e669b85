import path from 'node:path';
import ts from 'typescript';
import ts6 from 'typescript-6';
import { describe, expect, it } from 'vitest';
import {
  checkUserProject,
  exampleModules,
  readmeSnippets,
  type UserModule,
} from './strict-user-project.js';
import { WORKSPACE_ROOT } from './workspace-packages.js';

// A user project with the strictest settings users turn on (STRICT_USER_OPTIONS:
// exactOptionalPropertyTypes, noUncheckedIndexedAccess, verbatimModuleSyntax, strict, …) holds
// every ```ts block of the root's and the packages' READMEs and every module of
// packages/*/examples, and type-checks them with TypeScript 5.9 and 6.0. A README block that
// continues the reader's code may use names from it (`cs`, `manager`): those are its free names,
// everything else in it is judged. No casts and no conditional spreads: what the types make users
// write is what the README shows.

/** COMPILERS are the TypeScript versions users build with: the workspace's 5.9 and 6.0. */
const COMPILERS: [string, typeof ts][] = [
  [ts.version, ts],
  [ts6.version, ts6 as unknown as typeof ts],
];

/**
 * SKETCHES are README blocks that are not programs (they do not parse): a signature and an
 * outline with `…`, by README and first line.
 */
const SKETCHES = new Set([
  'packages/envtest/README.md eventually<T>(check: (attempt: number) => T | Promise<T>, { timeoutMs?, intervalMs?, signal? }): Promise<T>',
  'packages/envtest/README.md const serving = await env.webhookServing(); // a CA of its own; tls.crt/tls.key in serving.certPath/keyPath',
]);

/**
 * ALLOWED_CASTS are casts of what k does not type, by module: request-logging.ts sends raw
 * requests through the transport, and undici gives the headers in three shapes and a body's JSON
 * as `unknown`.
 */
const ALLOWED_CASTS = new Set([
  'packages/transport/examples/request-logging.ts headers as Iterable<[string, unknown]>',
  'packages/transport/examples/request-logging.ts headers as Record<string, unknown>',
  'packages/transport/examples/request-logging.ts (await version.body.json()) as { gitVersion?: string }',
  'packages/transport/examples/request-logging.ts (await review.body.json()) as { status?: { userInfo?: { username?: string } } }',
]);

/** sketchKey is a block's README and first line. */
function sketchKey(module: UserModule): string {
  return `${module.name.replace(/:\d+$/, '')} ${module.text.split('\n', 1)[0]}`;
}

const snippets = readmeSnippets();
const sketches = snippets.filter((module) => SKETCHES.has(sketchKey(module)));
const programs = [...snippets.filter((module) => !sketches.includes(module)), ...exampleModules()];

describe('a user project with the strictest settings', () => {
  it('holds the READMEs’ blocks and the examples', () => {
    expect(sketches.map(sketchKey)).toEqual([...SKETCHES]);
    for (const readme of [
      'README.md',
      'packages/clientset/README.md',
      'packages/runtime/README.md',
    ]) {
      expect(programs.some((module) => module.name.startsWith(`${readme}:`))).toBe(true);
    }
    expect(programs.map((module) => module.name)).toEqual(
      expect.arrayContaining([
        'packages/clientset/examples/configmaps.ts',
        'packages/rest/examples/configmap-round-trip.ts',
        'packages/runtime/examples/configmap-mirror.ts',
        'packages/runtime/examples/generated/team-namespace-v1.ts',
      ]),
    );
  });

  it('keeps the sketches out because they do not parse', () => {
    for (const sketch of sketches) {
      const { diagnostics = [] } = ts.transpileModule(sketch.text, { reportDiagnostics: true });
      expect(diagnostics.length, `${sketch.name} parses: check it as a program`).toBeGreaterThan(0);
    }
  });

  it.each(COMPILERS)(
    'type-checks them with TypeScript %s',
    (_version, compiler) => {
      const report = checkUserProject(compiler, programs);
      expect(report.errors).toEqual([]);
      const casts = report.casts.filter(
        (cast) =>
          !cast.includes('/generated/') && // k-gen's factories cast the generic client, not users
          !ALLOWED_CASTS.has(cast.replace(/:\d+ /, ' ')),
      );
      expect(casts).toEqual([]);
    },
    300_000,
  );
});

describe('checkUserProject', () => {
  /** userModule is an in-memory example module of @k/config (it resolves the packages as one). */
  const userModule = (name: string, text: string): UserModule => ({
    name: `packages/config/examples/${name}`,
    file: path.join(WORKSPACE_ROOT, 'packages/config/examples', name),
    text,
    snippet: false,
  });

  it('reports a misspelled import as an error, casts and conditional spreads as casts, and nothing of a clean module', () => {
    const report = checkUserProject(ts, [
      userModule(
        'misspelled.ts',
        "import { loadKubeconfg } from '@k/config';\nvoid loadKubeconfg;\n",
      ),
      userModule(
        'casts.ts',
        [
          'export function build(value: unknown, condition: boolean, a: string) {',
          '  const text = value as string;',
          '  return { text, ...(condition ? { a } : {}) };',
          '}',
          '',
        ].join('\n'),
      ),
      userModule(
        'clean.ts',
        "import { loadKubeconfig } from '@k/config';\nexport const load: typeof loadKubeconfig = loadKubeconfig;\n",
      ),
    ]);
    expect(report.errors).toEqual([
      `packages/config/examples/misspelled.ts:1 TS2724 '"@k/config"' has no exported member named 'loadKubeconfg'. Did you mean 'loadKubeconfig'?`,
    ]);
    expect(report.casts).toEqual([
      'packages/config/examples/casts.ts:2 value as string',
      'packages/config/examples/casts.ts:3 ...(condition ? { a } : {})',
    ]);
    expect(report.freeNames).toEqual(new Map());
  });
});
