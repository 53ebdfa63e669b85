import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** REPOSITORY_ROOT is the monorepo's root directory: the builtin generator's paths are relative to it. */
export const REPOSITORY_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
