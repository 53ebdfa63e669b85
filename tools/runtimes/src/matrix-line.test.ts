import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childNodeVersions, lineUnderTest, type Runner } from './test-fixtures.js';

const run: Runner = (command, args, cwd) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });

describe('the Node line under test (the matrix runs each unit suite on it)', () => {
  it('runs this suite and every child node it spawns', async () => {
    const expected = lineUnderTest();
    expect(process.version).toBe(expected);
    expect(await childNodeVersions(run)).toEqual({
      execPath: expected,
      path: expected,
      shebang: expected,
    });
  });
});
