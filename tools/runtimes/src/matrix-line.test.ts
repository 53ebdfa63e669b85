import { runCommand } from '@k/test-utils';
import { describe, expect, it } from 'vitest';
import { childNodeVersions, lineUnderTest } from './test-fixtures.js';

describe('the Node line under test (the matrix runs each unit suite on it)', () => {
  it('runs this suite and every child node it spawns, as runCommand starts them', async () => {
    const expected = lineUnderTest();
    expect(process.version).toBe(expected);
    expect(await childNodeVersions(runCommand)).toEqual({
      execPath: expected,
      path: expected,
      shebang: expected,
    });
  });
});
