import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** TempFiles is a scratch directory for tests; `write` creates parents, `cleanup` removes it all. */
export interface TempFiles {
  root: string;
  write(relativePath: string, content: string | Uint8Array): string;
  path(relativePath: string): string;
  cleanup(): void;
}

/** createTempFiles makes a fresh scratch directory under the OS temp dir. */
export function createTempFiles(prefix = 'k-config-'): TempFiles {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return {
    root,
    path: (relativePath) => join(root, relativePath),
    write(relativePath, content) {
      const path = join(root, relativePath);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      return path;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
