import { runCommand } from '@k/test-utils';
import { describe, expect, it } from 'vitest';
import { childNodeVersions, lineUnderTest } from '../src/test-fixtures.js';

describe('the Node line under test (the matrix runs the installed-tarball e2e files on it)', () => {
  it('runs this e2e worker and every child node runCommand starts, as the installed examples start theirs', async () => {
    const expected = lineUnderTest();
    expect(process.version).toBe(expected);
    expect(await childNodeVersions(runCommand)).toEqual({
      execPath: expected,
      path: expected,
      shebang: expected,
    });
  });
});
