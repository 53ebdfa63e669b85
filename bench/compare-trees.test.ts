import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseFigures, runSample } from './compare-trees.js';

const WORKSPACE_NODE_MODULES = fileURLToPath(new URL('../node_modules', import.meta.url));

describe('parseFigures', () => {
  it('keys each figure by section, row names and column, leaving ratio columns out', () => {
    const output = [
      '# rest',
      '',
      '## Requests',
      '',
      '| workload | client | result | vs raw | failed |',
      '| --- | --- | ---: | ---: | ---: |',
      '| 32-concurrent GET | raw undici + JSON.parse | 12,682 req/s | 1.00x | 0 |',
      '| 32-concurrent GET | @k/rest (undici Agent) | 18,114.5 req/s | 1.43x | 9 (UND_ERR_INFO) |',
      '',
      'A line of prose ends the table.',
    ].join('\n');

    expect(parseFigures('rest', output)).toEqual([
      {
        bench: 'rest',
        section: 'Requests',
        row: '32-concurrent GET · raw undici + JSON.parse',
        column: 'result',
        unit: 'req/s',
        value: 12_682,
      },
      {
        bench: 'rest',
        section: 'Requests',
        row: '32-concurrent GET · raw undici + JSON.parse',
        column: 'failed',
        unit: '',
        value: 0,
      },
      {
        bench: 'rest',
        section: 'Requests',
        row: '32-concurrent GET · @k/rest (undici Agent)',
        column: 'result',
        unit: 'req/s',
        value: 18_114.5,
      },
      {
        bench: 'rest',
        section: 'Requests',
        row: '32-concurrent GET · @k/rest (undici Agent)',
        column: 'failed',
        unit: '',
        value: 9,
      },
    ]);
  });
});

describe('runSample', () => {
  it("returns the benchmark's stdout up to its end, and puts its report back", async () => {
    // 'exit' comes when the process ends, 'close' once its stdout has ended too. A benchmark
    // whose child still holds stdout (and prints its last line after the benchmark exits)
    // makes the difference certain; plain buffered output makes it a race.
    const tree = await mkdtemp(join(tmpdir(), 'k-compare-trees-'));
    try {
      await symlink(WORKSPACE_NODE_MODULES, join(tree, 'node_modules'), 'dir');
      await writeFile(join(tree, 'report.md'), 'the report as it was\n');
      await writeFile(
        join(tree, 'print.mjs'),
        [
          "import { spawn } from 'node:child_process';",
          "import { writeFileSync } from 'node:fs';",
          "writeFileSync('report.md', 'overwritten by the benchmark');",
          "for (let line = 0; line < 2_000; line += 1) process.stdout.write(`| row ${line} | ${'x'.repeat(100)} |\\n`);",
          'const late = "setTimeout(() => process.stdout.write(\'the last line\\\\n\'), 500)";',
          "spawn(process.execPath, ['-e', late], { stdio: ['ignore', 'inherit', 'inherit'] }).unref();",
        ].join('\n'),
      );

      const stdout = await runSample(
        { name: 'fixture', path: tree },
        { file: 'print.mjs', source: false, report: 'report.md', defaults: {} },
      );

      expect(stdout.split('\n')).toHaveLength(2_002);
      expect(stdout.endsWith(`| row 1999 | ${'x'.repeat(100)} |\nthe last line\n`)).toBe(true);
      expect(await readFile(join(tree, 'report.md'), 'utf8')).toBe('the report as it was\n');
    } finally {
      await rm(tree, { recursive: true, force: true });
    }
  });
});
