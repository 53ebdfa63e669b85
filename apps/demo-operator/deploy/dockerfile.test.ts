import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseManifests } from '@k/clientset';
import { describe, expect, it } from 'vitest';
import tsupConfig from '../tsup.config.js';

// No image can be built where these tests run (no container engine): they check, without one,
// what would make deploy/Dockerfile fail or build a broken image.

const APP_ROOT = path.resolve(import.meta.dirname, '..');
const REPO_ROOT = path.resolve(APP_ROOT, '../..');
const APP_DIRECTORY = path.relative(REPO_ROOT, APP_ROOT); // apps/demo-operator

interface Instruction {
  keyword: string;
  args: string[];
  /** stage is the name of the stage the instruction is in (`AS name`). */
  stage: string;
}

/**
 * instructions reads a Dockerfile: comments dropped, continued lines joined, each tagged with its
 * stage (`''` before the first FROM, where the global ARGs are).
 */
function instructions(text: string): Instruction[] {
  const lines = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n');
  let stage = '';
  const result: Instruction[] = [];
  for (const line of lines) {
    const [keyword, ...args] = line.trim().split(/\s+/);
    if (!keyword) continue;
    if (keyword === 'FROM')
      stage = args[1] === 'AS' && args[2] ? args[2] : `stage ${result.length}`;
    result.push({ keyword, args, stage });
  }
  return result;
}

const dockerfile = instructions(readFileSync(path.join(APP_ROOT, 'deploy/Dockerfile'), 'utf8'));
/** globalArgs are the ARGs declared before the first FROM, with their defaults: only they may name a base image. */
const globalArgs = new Map(
  dockerfile
    .filter((entry) => entry.stage === '' && entry.keyword === 'ARG')
    .map((entry) => {
      const [name, value = ''] = entry.args[0]!.split(/=(.*)/s);
      return [name!, value] as const;
    }),
);
/** baseImage is what a FROM names, with a global ARG replaced by its default (`${NAME}` only). */
function baseImage(from: Instruction): string {
  const reference = from.args[0]!;
  const argument = /^\$\{(\w+)\}$/.exec(reference)?.[1];
  return argument === undefined ? reference : (globalArgs.get(argument) ?? reference);
}
const stages = dockerfile.filter((entry) => entry.keyword === 'FROM');
const finalStage = stages.at(-1)!.stage;
const final = dockerfile.filter((entry) => entry.stage === finalStage);

interface Copy {
  stage: string;
  from: string | undefined;
  sources: string[];
  destination: string;
}
const copies: Copy[] = dockerfile
  .filter((entry) => entry.keyword === 'COPY')
  .map((entry) => {
    const paths = entry.args.filter((arg) => !arg.startsWith('--'));
    return {
      stage: entry.stage,
      from: entry.args.find((arg) => arg.startsWith('--from='))?.slice('--from='.length),
      sources: paths.slice(0, -1),
      destination: paths.at(-1)!,
    };
  });

interface Manifest {
  name: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}
const manifestOf = (directory: string): Manifest =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, directory, 'package.json'), 'utf8')) as Manifest;

/** workspaces maps each workspace package of the repository to its folder (the root's `workspaces` globs). */
function workspaces(): Map<string, string> {
  const folders = new Map<string, string>();
  for (const pattern of manifestOf('.').workspaces ?? []) {
    const candidates = pattern.endsWith('/*')
      ? readdirSync(path.join(REPO_ROOT, pattern.slice(0, -2))).map(
          (name) => `${pattern.slice(0, -2)}/${name}`,
        )
      : [pattern];
    for (const folder of candidates) {
      if (existsSync(path.join(REPO_ROOT, folder, 'package.json'))) {
        folders.set(manifestOf(folder).name, folder);
      }
    }
  }
  return folders;
}

/** runtimeWorkspaces are the workspace packages the operator loads at run time: its production dependencies, transitively. */
function runtimeWorkspaces(): Set<string> {
  const folders = workspaces();
  const found = new Set<string>();
  const visit = (folder: string) => {
    for (const name of Object.keys(manifestOf(folder).dependencies ?? {})) {
      const dependency = folders.get(name);
      if (dependency && !found.has(dependency)) {
        found.add(dependency);
        visit(dependency);
      }
    }
  };
  visit(APP_DIRECTORY);
  return found;
}

/** parentOf is the stage `stage` builds on (`FROM other AS stage`), when it is one of this file's. */
function parentOf(stage: string): string | undefined {
  const base = stages.find((entry) => entry.stage === stage)?.args[0];
  return stages.some((entry) => entry.stage === base) ? base : undefined;
}

/** workdirOf is the last WORKDIR of `stage` or of the stages it builds on. */
function workdirOf(stage: string | undefined): string {
  if (!stage) return '/';
  const own = dockerfile
    .filter((entry) => entry.stage === stage && entry.keyword === 'WORKDIR')
    .at(-1);
  return own ? own.args[0]! : workdirOf(parentOf(stage));
}

/**
 * landing is where COPY puts `source` in `stage`: a folder's contents go to the destination
 * itself, a file into a destination ending in `/`. A source of another stage is taken for a file
 * when its name has a dot (`package.json`), else for a folder (`dist`, `node_modules`).
 */
function landing(stage: string, source: string, destination: string, fromContext = false): string {
  const absolute = destination.startsWith('/')
    ? destination
    : path.posix.join(workdirOf(stage), destination);
  const folder = fromContext
    ? statSync(path.join(REPO_ROOT, source)).isDirectory()
    : !path.posix.basename(source).includes('.');
  return !folder && destination.endsWith('/')
    ? path.posix.join(absolute, path.posix.basename(source))
    : path.posix.normalize(absolute).replace(/\/$/, '');
}

/** contextSourcesOf lists what `stage` and the stages it builds on copied from the build context. */
function contextSourcesOf(stage: string | undefined): string[] {
  if (!stage) return [];
  return [
    ...contextSourcesOf(parentOf(stage)),
    ...copies.filter((copy) => copy.stage === stage && !copy.from).flatMap((copy) => copy.sources),
  ];
}

describe('deploy/Dockerfile', () => {
  it('copies only files and folders that exist in the repository, and never what the ignore file leaves out', () => {
    const ignored = readFileSync(path.join(APP_ROOT, 'deploy/Dockerfile.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
    const fromContext = copies.filter((copy) => !copy.from).flatMap((copy) => copy.sources);
    expect(fromContext.length).toBeGreaterThan(10);
    for (const copy of copies.filter((entry) => !entry.from)) {
      for (const source of copy.sources) {
        expect(existsSync(path.join(REPO_ROOT, source)), source).toBe(true);
        // The workspace keeps the repository's layout (npm ci and nx depend on it).
        expect(landing(copy.stage, source, copy.destination, true), source).toBe(
          path.posix.join(workdirOf(copy.stage), source),
        );
      }
    }
    for (const source of fromContext) {
      expect(source.split('/'), source).not.toContain('node_modules');
      expect(source.split('/'), source).not.toContain('dist');
    }
  });

  it('gives npm ci the manifest of every workspace the lockfile names, before the sources', () => {
    const manifests = new Set(
      copies
        .filter((copy) => copy.stage === 'manifests')
        .flatMap((copy) => copy.sources)
        .filter((source) => source.endsWith('package.json')),
    );
    for (const folder of workspaces().values()) {
      expect(manifests, `${folder}/package.json`).toContain(`${folder}/package.json`);
    }
    expect(manifests).toContain('package.json');
    expect(copies.find((copy) => copy.stage === 'manifests')?.sources).toContain(
      'package-lock.json',
    );
    const ciInManifests = dockerfile.filter(
      (entry) => entry.stage === 'manifests' && entry.keyword === 'RUN',
    );
    expect(ciInManifests).toEqual([]);
  });

  it('builds the operator in a stage that has its sources and those of every package it loads', () => {
    const build = dockerfile.filter((entry) => entry.stage === 'build');
    expect(
      build.find((entry) => entry.keyword === 'RUN' && entry.args.includes('ci')),
    ).toBeDefined();
    const buildCommand = build
      .filter((entry) => entry.keyword === 'RUN')
      .at(-1)!
      .args.join(' ');
    expect(buildCommand).toBe(`npx nx run ${manifestOf(APP_DIRECTORY).name}:build`);
    const sources = contextSourcesOf('build');
    for (const folder of [APP_DIRECTORY, ...runtimeWorkspaces()]) {
      expect(
        sources.some((source) => folder === source || folder.startsWith(`${source}/`)),
        folder,
      ).toBe(true);
      expect(manifestOf(folder).scripts?.build, `${folder} has a build`).toBe('tsup');
    }
    for (const file of ['nx.json', 'tsconfig.base.json', 'tsup.shared.ts']) {
      expect(sources).toContain(file);
    }
  });

  it('installs the production dependencies from the lockfile, none of which npm would nest inside a workspace', () => {
    const install = dockerfile
      .filter((entry) => entry.stage === 'production' && entry.keyword === 'RUN')
      .map((entry) => entry.args.join(' '));
    expect(install).toEqual([
      expect.stringMatching(
        new RegExp(`^npm ci --omit=dev --workspace=${manifestOf(APP_DIRECTORY).name} `),
      ),
    ]);
    expect(parentOf('production')).toBe('manifests');
    // The image copies the root node_modules only: a dependency nested in a workspace would be missing.
    const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const copied = [APP_DIRECTORY, ...runtimeWorkspaces()];
    const nested = Object.keys(lock.packages).filter((entry) =>
      copied.some((folder) => entry.startsWith(`${folder}/node_modules/`)),
    );
    expect(nested).toEqual([]);
  });

  it('puts into the image every package the operator loads, built, beside the production node_modules', () => {
    const fromBuild = copies.filter((copy) => copy.stage === finalStage && copy.from === 'build');
    const copiedFolders = (file: string) =>
      new Set(
        fromBuild
          .flatMap((copy) => copy.sources)
          .filter((source) => source.endsWith(`/${file}`))
          .map((source) => path.posix.relative('/workspace', path.posix.dirname(source))),
      );
    const expected = new Set([APP_DIRECTORY, ...runtimeWorkspaces()]);
    expect(copiedFolders('package.json')).toEqual(expected);
    expect(copiedFolders('dist')).toEqual(expected);
    // Each lands where node_modules/@k/* links to (../../packages/…), beside node_modules.
    for (const copy of fromBuild) {
      const source = copy.sources[0]!;
      expect(landing(finalStage, source, copy.destination)).toBe(
        path.posix.join('/app', path.posix.relative('/workspace', source)),
      );
    }
    const modules = copies.filter(
      (copy) => copy.stage === finalStage && copy.from === 'production',
    );
    expect(modules.map((copy) => landing(finalStage, copy.sources[0]!, copy.destination))).toEqual([
      '/app/node_modules',
    ]);
    expect(modules.map((copy) => copy.sources)).toEqual([
      [`${workdirOf('production')}/node_modules`],
    ]);
  });

  it('starts the command the build produces (dist/cli.js from src/cli.ts)', () => {
    const entrypoint = JSON.parse(
      final.find((entry) => entry.keyword === 'ENTRYPOINT')!.args.join(' '),
    ) as string[];
    expect(entrypoint[0]).toBe('/nodejs/bin/node');
    expect(entrypoint[1]).toBe(`/app/${APP_DIRECTORY}/dist/cli.js`);
    const options = tsupConfig as { entry: Record<string, string>; format: string[] };
    expect(options.entry.cli).toBe('src/cli.ts');
    expect(options.format).toEqual(['esm']);
    expect(readFileSync(path.join(APP_ROOT, 'src/cli.ts'), 'utf8')).toMatch(/await main\(/);
    // The image copies dist/ and the package's manifest: dist/cli.js is ESM because of its type.
    expect((manifestOf(APP_DIRECTORY) as Manifest & { type?: string }).type).toBe('module');
  });

  it('builds and runs on one supported Node LTS line, from base images a release can pin by digest', () => {
    // Every base image is a global ARG used whole (`FROM ${NAME}`), so a release passes
    // `--build-arg NAME=<image>:<tag>@sha256:<digest>`; the defaults name a tag, never `latest`.
    const bases = stages.filter((entry) => !stages.some((stage) => stage.stage === entry.args[0]));
    expect(bases.map((entry) => entry.args[0])).toEqual(['${BUILD_IMAGE}', '${RUNTIME_IMAGE}']);
    const reference = /^(?:[a-z0-9.-]+\/)*[a-z0-9._-]+:([\w.-]+)(?:@sha256:[0-9a-f]{64})?$/;
    for (const entry of bases) {
      const image = baseImage(entry);
      expect(image, entry.args[0]).toMatch(reference);
      expect(reference.exec(image)![1], image).not.toBe('latest');
    }
    const build = /^node:(\d+)-(\w+)-slim\b/.exec(baseImage(bases[0]!));
    const runtime = /\/nodejs(\d+)-debian(\d+):/.exec(baseImage(bases[1]!));
    expect(build, baseImage(bases[0]!)).not.toBeNull();
    expect(runtime, baseImage(bases[1]!)).not.toBeNull();
    // The build's Node and Debian are the image's (npm ci and the build run on what runs them).
    expect(build![1]).toBe(runtime![1]);
    const debian: Record<string, string> = { bookworm: '12', trixie: '13' };
    expect(debian[build![2]!], build![2]).toBe(runtime![2]);
    // An LTS line before its end of life (the Node.js release schedule): Node 20's ended on
    // 2026-04-30. This fails once the image's line reaches its end: move to the next LTS first.
    const endOfLife: Record<string, string> = {
      '22': '2027-04-30',
      '24': '2028-04-30',
      '26': '2029-04-30',
    };
    const major = runtime![1]!;
    expect(endOfLife[major], `Node ${major} is not a supported LTS line`).toBeDefined();
    expect(Date.now(), `Node ${major} reached its end of life on ${endOfLife[major]}`).toBeLessThan(
      Date.parse(`${endOfLife[major]}T00:00:00Z`),
    );
  });

  it('runs as the non-root user the Deployment asks for, with nothing to write (a read-only root filesystem)', async () => {
    const user = final.find((entry) => entry.keyword === 'USER')!.args[0]!;
    const [uid, gid] = user.split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    expect(baseImage(stages.at(-1)!)).toMatch(/:nonroot(@sha256:[0-9a-f]{64})?$/);
    // The image runs nothing at build time (distroless: no shell) and declares no volume to write to.
    expect(final.filter((entry) => ['RUN', 'VOLUME'].includes(entry.keyword))).toEqual([]);
    const [deployment] = (await parseManifests(
      readFileSync(path.join(APP_ROOT, 'deploy/deployment.yaml'), 'utf8'),
    )) as {
      spec: {
        template: {
          spec: {
            securityContext: { runAsNonRoot: boolean; runAsUser: number; runAsGroup: number };
            containers: { securityContext: { readOnlyRootFilesystem: boolean } }[];
          };
        };
      };
    }[];
    const pod = deployment!.spec.template.spec;
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: uid,
      runAsGroup: gid,
    });
    expect(pod.containers[0]!.securityContext.readOnlyRootFilesystem).toBe(true);
  });
});
