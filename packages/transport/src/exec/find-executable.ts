import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * ExecutableLookup is where a plugin command is: `path` to run, or none — then `relativeMatch`
 * is set when the only match was found relative to the current directory, which is not run.
 */
export type ExecutableLookup =
  { path: string; relativeMatch?: undefined } | { path?: undefined; relativeMatch?: string };

async function isExecutable(file: string): Promise<boolean> {
  try {
    if ((await stat(file)).isDirectory()) return false;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * findExecutable resolves a plugin command as Go's `exec.Command` does (client-go runs plugins
 * with it), so a kubeconfig behaves as with kubectl:
 * - a command containing a slash is used as given, relative to the working directory (the
 *   kubeconfig loader already made paths relative to the kubeconfig file absolute);
 * - a bare name is looked up in the directories of `searchPath` (the parent's `PATH`, not the
 *   plugin's environment), in order; the first executable file found wins. An empty entry means
 *   the current directory and so does a relative one: when the first match is relative it is
 *   refused (`relativeMatch`), not run and not skipped — Go's `ErrDot` since Go 1.19 ("cannot
 *   run executable found relative to current directory") — so `PATH=:/usr/bin` never runs a
 *   plugin planted in the current directory. An empty `searchPath` finds nothing.
 * On Windows the name is returned as given (the system's own lookup applies).
 */
export async function findExecutable(
  command: string,
  searchPath: string,
): Promise<ExecutableLookup> {
  if (process.platform === 'win32' || command.includes('/')) return { path: command };
  if (searchPath === '') return {};
  for (const entry of searchPath.split(delimiter)) {
    const candidate = join(entry === '' ? '.' : entry, command);
    if (!(await isExecutable(candidate))) continue;
    return isAbsolute(candidate) ? { path: candidate } : { relativeMatch: candidate };
  }
  return {};
}
