import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RUNNER = fileURLToPath(
  new URL('../../e2e/fixtures/exec-plugin-terminal-runner.mts', import.meta.url),
);
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** Runs the provider in a child process, inside a pseudo-terminal (`script`) or with stdin from /dev/null. */
function runProvider(mode: string, terminal: boolean): Record<string, unknown> {
  const node = `${process.execPath} --conditions=@k/source --import tsx ${RUNNER} ${mode}`;
  const output = terminal
    ? execFileSync('script', ['-qec', node, '/dev/null'], { encoding: 'utf8', timeout: 30_000 })
    : execFileSync('sh', ['-c', `${node} < /dev/null`], { encoding: 'utf8', timeout: 30_000 });
  const line = output.split(/\r?\n/).find((candidate) => candidate.startsWith('RESULT '));
  if (!line) throw new Error(`no RESULT line in: ${output}`);
  return JSON.parse(line.slice('RESULT '.length)) as Record<string, unknown>;
}

// util-linux's `script` (Debian's essential bsdutils) gives the child a real pseudo-terminal;
// without it these tests cannot prove anything, so they fail rather than skip.
if (!hasScript) throw new Error('`script` (util-linux) is not on PATH: the terminal tests need it');

describe('interactiveMode with a real terminal (util-linux script)', () => {
  it('IfAvailable on a terminal runs the plugin interactively with our terminal as stdin', () => {
    expect(runProvider('IfAvailable', true)).toEqual({
      parentTerminal: true,
      interactive: true,
      pluginStdinTerminal: true,
    });
  });

  it('Never on a terminal keeps stdin away from the plugin', () => {
    expect(runProvider('Never', true)).toEqual({
      parentTerminal: true,
      interactive: false,
      pluginStdinTerminal: false,
    });
  });

  it('IfAvailable without a terminal is not interactive, Always fails', () => {
    expect(runProvider('IfAvailable', false)).toEqual({
      parentTerminal: false,
      interactive: false,
      pluginStdinTerminal: false,
    });
    expect(runProvider('Always', false)).toEqual({
      error: 'exec plugin cannot support interactive mode: standard input is not a terminal',
    });
  });
});
