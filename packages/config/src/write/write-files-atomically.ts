import { randomBytes } from 'node:crypto';
import {
  copyFile,
  link,
  lstat,
  mkdir,
  open,
  readlink,
  realpath,
  rename,
  stat,
  unlink,
} from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { KubeconfigError } from '../errors.js';

/** FileContent is one file to write. */
export interface FileContent {
  path: string;
  content: string;
}

/** The mode of a new kubeconfig file: it holds credentials. */
const NEW_FILE_MODE = 0o600;

interface PreparedFile {
  path: string;
  target: string;
  temporary: string;
  /** backup holds the original content (a hard link) until all renames are done; '' for a new file. */
  backup: string;
  renamed: boolean;
}

/**
 * writeFilesAtomically replaces each file's content so that a reader sees the old or the new
 * file, never a mix: every content goes to a temporary file in the same directory, is fsynced,
 * and only when all are written are they renamed over their targets. If a rename fails, the
 * files already replaced are put back from a hard-link backup, so the set changes all together
 * or not at all. A symlink is followed (its target is replaced, the link stays), an existing
 * file keeps its mode, a new file gets 0600 and missing parent directories 0755. Temporary
 * files and backups never outlive the call. Throws `ERR_KUBECONFIG_WRITE` naming the file.
 */
export async function writeFilesAtomically(files: readonly FileContent[]): Promise<void> {
  const prepared: PreparedFile[] = [];
  try {
    for (const file of files) prepared.push(await prepare(file));
    for (const file of prepared) {
      await rename(file.temporary, file.target).catch((error: unknown) => {
        throw writeError(file.path, 'rename', error);
      });
      file.renamed = true;
      await syncDirectory(dirname(file.target));
    }
  } catch (error) {
    await rollBack(prepared);
    if (error instanceof KubeconfigError) throw error;
    throw writeError(files[prepared.length]?.path ?? '', 'write', error);
  }
  await Promise.all(
    prepared.map((file) =>
      file.backup ? unlink(file.backup).catch(() => undefined) : Promise.resolve(),
    ),
  );
}

async function rollBack(prepared: readonly PreparedFile[]): Promise<void> {
  for (const file of prepared) {
    if (!file.renamed) {
      await unlink(file.temporary).catch(() => undefined);
      if (file.backup) await unlink(file.backup).catch(() => undefined);
    } else if (file.backup) {
      await rename(file.backup, file.target).catch(() => undefined);
    } else {
      await unlink(file.target).catch(() => undefined);
    }
  }
}

async function prepare(file: FileContent): Promise<PreparedFile> {
  const target = await realTarget(file.path);
  const directory = dirname(target);
  let mode = NEW_FILE_MODE;
  let existed = false;
  try {
    mode = (await stat(target)).mode & 0o7777;
    existed = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw writeError(file.path, 'stat', error);
    await mkdir(directory, { recursive: true, mode: 0o755 }).catch((cause: unknown) => {
      throw writeError(file.path, 'mkdir', cause);
    });
  }
  const temporary = join(directory, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  let handle;
  try {
    handle = await open(temporary, 'wx', mode);
  } catch (error) {
    throw writeError(file.path, 'create a temporary file for', error);
  }
  try {
    await handle.chmod(mode); // open's mode is reduced by the umask
    await handle.writeFile(file.content, 'utf8');
    await handle.sync();
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    throw writeError(file.path, 'write', error);
  }
  let backup = '';
  if (existed) {
    backup = join(directory, `.${basename(target)}.${randomBytes(6).toString('hex')}.bak`);
    try {
      await link(target, backup);
    } catch {
      await copyFile(target, backup).catch(async (error: unknown) => {
        await unlink(temporary).catch(() => undefined);
        throw writeError(file.path, 'back up', error);
      });
    }
  }
  return { path: file.path, target, temporary, backup, renamed: false };
}

/** realTarget follows symlinks (also dangling ones), so the link survives the rename. */
async function realTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    // Missing, or a dangling link: follow the links by hand (bounded, against loops).
    let current = path;
    for (let depth = 0; depth < 40; depth++) {
      const link = await lstat(current).catch(() => undefined);
      if (!link?.isSymbolicLink()) return current;
      current = resolve(dirname(current), await readlink(current));
    }
    return current;
  }
}

async function syncDirectory(directory: string): Promise<void> {
  // Makes the rename durable; some platforms cannot open a directory, which is fine.
  try {
    const handle = await open(directory, 'r');
    await handle.sync().finally(() => handle.close());
  } catch {
    // best effort
  }
}

function writeError(path: string, action: string, error: unknown): KubeconfigError {
  if (error instanceof KubeconfigError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'failed';
  return new KubeconfigError(
    'ERR_KUBECONFIG_WRITE',
    `cannot ${action} kubeconfig "${path}": ${code}`,
    {
      path,
      cause: error,
    },
  );
}
