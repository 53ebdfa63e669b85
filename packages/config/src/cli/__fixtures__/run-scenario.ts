import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseKubeconfig } from '../../model/parse-kubeconfig.js';
import { encodeKubeconfig } from '../../view/encode-kubeconfig.js';
import { run } from '../run.js';
import type { Scenario } from './kubectl-scenarios.js';
import { ROOT } from './kubectl-scenarios.js';

/** CommandResult is what one side printed and its exit code. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Side is one copy of a scenario's files, run by kubectl or by k-config. */
export interface Side {
  root: string;
  env: Record<string, string | undefined>;
  cwd: string;
}

const substitute = (text: string, root: string) => text.replaceAll(ROOT, root);

/** materialize writes a scenario's files under `root` and returns how to run a command there. */
export function materialize(scenario: Scenario, root: string): Side {
  for (const directory of ['home', 'cfg/sub', 'other'])
    mkdirSync(join(root, directory), { recursive: true });
  for (const file of scenario.files) {
    const path = join(root, file.path);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(
      path,
      typeof file.content === 'string' ? substitute(file.content, root) : file.content,
    );
  }
  const env: Record<string, string | undefined> = { HOME: join(root, 'home') };
  if (scenario.kubeconfigEnv !== undefined)
    env.KUBECONFIG = substitute(scenario.kubeconfigEnv, root);
  return { root, env, cwd: join(root, scenario.cwd) };
}

/** argsFor gives the command's arguments with the placeholder replaced. */
export function argsFor(scenario: Scenario, side: Side, extra: readonly string[] = []): string[] {
  return [
    scenario.command,
    ...scenario.args.map((argument) => substitute(argument, side.root)),
    ...extra,
  ];
}

let running = 0;
const waiting: (() => void)[] = [];

/** runKubectl runs `kubectl config …` as a process, at most `KUBECTL_PARALLELISM` at a time. */
export async function runKubectl(args: readonly string[], side: Side): Promise<CommandResult> {
  const limit = Number(process.env.KUBECTL_PARALLELISM ?? 2);
  while (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await new Promise((resolve) => {
      execFile(
        'kubectl',
        ['config', ...args],
        { cwd: side.cwd, env: { ...side.env, PATH: process.env.PATH }, timeout: 20_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** runK runs `k-config …` in-process through the CLI's `run`. */
export async function runK(args: readonly string[], side: Side): Promise<CommandResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    env: side.env,
    cwd: side.cwd,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/**
 * normalizeConfigJson removes what the issue allows to differ: object keys whose value is
 * `null`, `false`, `""`, `[]` or `{}` after normalising their contents. These are Go's zero
 * values, which client-go prints or omits depending on struct tags and on whether a slice or
 * map was nil or empty in the file (`exec.args: null` vs `[]`, `as-user-extra: {k: null}` vs
 * `{k: []}`, `server: ""` printed always). List items are never removed, so entry names, order
 * and count still have to match exactly, as do all other values.
 */
function normalizeConfigJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeConfigJson);
  if (typeof value !== 'object' || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    const normalized = normalizeConfigJson(entry);
    if (isZero(normalized)) continue;
    Object.defineProperty(result, key, { value: normalized, enumerable: true });
  }
  return result;
}

function isZero(value: unknown): boolean {
  if (value === null || value === false || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** sameViewOutput compares two `-o json` outputs after {@link normalizeConfigJson}. */
export function sameViewOutput(kubectl: string, k: string): boolean {
  try {
    return isDeepStrictEqual(
      normalizeConfigJson(JSON.parse(kubectl)),
      normalizeConfigJson(JSON.parse(k)),
    );
  } catch {
    return false;
  }
}

/**
 * fileStates reads each path of a side as a normalised kubeconfig (or "missing", or "unreadable:
 * …"), with the side's root replaced by the placeholder so both sides compare equal.
 */
export function fileStates(side: Side, paths: readonly string[]): Record<string, unknown> {
  const states: Record<string, unknown> = {};
  for (const path of paths) {
    const absolute = join(side.root, path);
    if (!existsSync(absolute)) {
      states[path] = 'missing';
      continue;
    }
    try {
      const text = readFileSync(absolute, 'utf8').replaceAll(side.root, ROOT);
      states[path] = normalizeConfigJson(encodeKubeconfig(parseKubeconfig(text, path).config));
    } catch (error) {
      states[path] = `unreadable: ${(error as Error).message}`;
    }
  }
  return states;
}

/**
 * failureKind classifies an error message so that both sides must fail for the same reason,
 * not just both fail. Messages differ in wording and in how they name files (kubectl as given,
 * k-config absolute), so only the reason and the file's base name are kept. All flatten
 * failures are one kind: Go visits a map in random order, so which entry fails first varies.
 */
export function failureKind(stderr: string, cwd: string): string {
  const loading = /error loading config file "([^"]*)"/.exec(stderr);
  if (loading) return `load ${basename(resolve(cwd, loading[1] ?? ''))}`;
  if (/in order to minify/.test(stderr)) return 'minify without current-context';
  const locate = /cannot locate (context|cluster|user) (.*)/.exec(stderr);
  if (locate) return `minify: no ${locate[1]} ${locate[2]}`;
  if (/both path and contents|open .*: no such file or directory/.test(stderr)) return 'flatten';
  if (/no context exists with the name/.test(stderr)) return 'use-context: no such context';
  if (/no current context is set/.test(stderr)) return 'set-context: no current context';
  const flag = /unknown (shorthand )?flag: (.*)/i.exec(stderr);
  if (flag) return `usage: unknown flag ${flag[2]}`;
  return `other: ${stderr.trim()}`;
}

/** describeScenario prints everything needed to reproduce a scenario by hand. */
export function describeScenario(scenario: Scenario): string {
  const files = scenario.files
    .filter((file) => typeof file.content === 'string')
    .map((file) => `--- ${file.path}\n${String(file.content)}`)
    .join('\n');
  const binaries = scenario.files
    .filter((file) => typeof file.content !== 'string')
    .map((file) => file.path);
  return [
    `seed ${scenario.seed} (rerun alone: KUBECTL_DIFF_SEED=${scenario.seed} npx vitest run src/cli/kubectl-differential.test.ts)`,
    `features: ${scenario.features.join(', ')}`,
    `cwd: __ROOT__/${scenario.cwd}`,
    `KUBECONFIG: ${scenario.kubeconfigEnv === undefined ? '(unset)' : JSON.stringify(scenario.kubeconfigEnv)}`,
    `command: kubectl config ${scenario.command} ${scenario.args.join(' ')}`,
    `certificate files: ${binaries.join(', ') || 'none'}`,
    files,
  ].join('\n');
}
