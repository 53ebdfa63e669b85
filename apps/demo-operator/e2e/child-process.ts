import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { APP_ROOT } from './helpers.js';

/** OPERATOR_BIN is the operator's command (it runs src/ in this checkout). */
export const OPERATOR_BIN = path.join(APP_ROOT, 'bin/demo-operator.mjs');

/** Child is a started `node` program whose stdout and stderr are collected together. */
export interface Child {
  readonly child: ChildProcess;
  output(): string;
  /** waitForOutput resolves when the output matches `pattern`; rejects at exit or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

/** startChild runs `node file ...args` with the environment plus `env` (vitest's own settings removed). */
export function startChild(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): Child {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(environment)) {
    if (name.startsWith('VITEST') || name === 'NODE_OPTIONS') delete environment[name];
  }
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete environment[name];
    else environment[name] = value;
  }
  const child = spawn(process.execPath, [file, ...args], {
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const watchers = new Set<() => void>();
  const collect = (chunk: string): void => {
    output += chunk;
    for (const watcher of watchers) watcher();
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  let ended = false;
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    output: string;
  }>((resolve) => {
    child.once('close', (code, signal) => {
      ended = true;
      for (const watcher of watchers) watcher();
      resolve({ code, signal, output });
    });
  });
  return {
    child,
    output: () => output,
    exited,
    waitForOutput(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`output did not match ${pattern} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        function check(): void {
          const match = output.match(pattern);
          if (match || ended) {
            watchers.delete(check);
            clearTimeout(timer);
            if (match) resolve(match);
            else reject(new Error(`exited before the output matched ${pattern}:\n${output}`));
          }
        }
        watchers.add(check);
        check();
      });
    },
  };
}
