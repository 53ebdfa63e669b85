import { chmodSync, chownSync, readFileSync, statSync } from 'node:fs';
import { MODULE_KINDS, runNodeProgram } from '@k/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TempFiles } from '../src/testing/temp-files.js';
import { createTempFiles } from '../src/testing/temp-files.js';

// A writer that is not root cannot give a new file away: a rename would hand a group-shared
// kubeconfig (root:1000, 0664) to the writer. The program runs as uid/gid 1000 (root drops its
// privileges at the start of main; the test runs as root) and must leave owner and group as
// they were, writing the file in place.

const KUBECONFIG = `apiVersion: v1
kind: Config
contexts: [{name: one, context: {}}, {name: two, context: {}}]
current-context: one
`;

let files: TempFiles;
beforeEach(() => {
  files = createTempFiles('k-config-owner-');
  chmodSync(files.root, 0o755);
});
afterEach(() => files.cleanup());

describe.each(MODULE_KINDS)('a non-root writer (%s)', (kind) => {
  it('keeps the owner and group of a group-shared kubeconfig', async () => {
    expect(process.getuid?.(), 'the e2e suite runs as root, which may chown').toBe(0);
    const directory = files.write('shared/.keep', '').replace(/\.keep$/, '');
    chownSync(directory, 1000, 1000); // the writer's own directory, as ~/.kube is
    const path = files.write('shared/config', KUBECONFIG);
    chownSync(path, 0, 1000);
    chmodSync(path, 0o664);
    const inode = statSync(path).ino;
    const result = await runNodeProgram(
      {
        imports: { '@k/config': ['loadKubeconfig'], '@k/config/edit': ['setCurrentContext'] },
        main: `
            process.setgid(1000);
            process.setuid(1000);
            const loaded = await loadKubeconfig({ explicitPath: process.argv[2] });
            await setCurrentContext(loaded, 'two');
            console.log(process.getuid(), 'switched');`,
      },
      kind,
      { args: [path] },
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: '1000 switched\n' });
    expect(readFileSync(path, 'utf8')).toContain('current-context: two');
    expect(statSync(path)).toMatchObject({ uid: 0, gid: 1000, ino: inode });
    expect(statSync(path).mode & 0o777).toBe(0o664);
  });
});
