import type { Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import {
  chown,
  copyFile,
  link,
  lstat,
  mkdir,
  open,
  readFile,
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

/** Errors that say "not allowed" rather than "broken": the in-place write may still work. */
const NOT_PERMITTED = new Set(['EACCES', 'EPERM', 'EINVAL', 'EROFS']);

/**
 * PreparedFile is one file ready to commit. `rename` files have their new content in
 * `temporary`; `in-place` files get it written into the target's own inode at commit time.
 */
type PreparedFile = {
  path: string;
  target: string;
  /** backup holds the original content until all files are committed; '' for none. */
  backup: string;
  committed: boolean;
} & (
  | { strategy: 'rename'; temporary: string }
  | { strategy: 'in-place'; content: Buffer; original: Buffer }
);

/**
 * writeFilesAtomically replaces each file's content, all files together or none: the new
 * contents are prepared first, then committed one after the other; if a commit fails, the
 * files already committed get their old content back. A symlink is followed (its target is
 * written, the link stays), an existing file keeps its mode, owner and group, a new file gets
 * 0600 and missing parent directories 0755. Temporary files and backups never outlive the call.
 * Throws `ERR_CONFIG_WRITE` naming the file.
 *
 * A file is normally replaced by renaming a temporary file over it (written and fsynced in the
 * same directory, given the original's mode, owner and group), so a reader sees the old or the
 * new file, never a mix. That makes a new inode, which is wrong in two cases, where the file is
 * instead rewritten in place, as kubectl always does (see docs/decisions/0008):
 * - it has hard links (`nlink > 1`): a rename would leave the other names on the old content;
 * - the temporary file cannot be given the original's owner and group (only root may give a
 *   file away) or cannot be created (a directory the user may not write): a rename would hand
 *   the user's file to whoever runs the command, e.g. root under sudo.
 * An in-place write keeps inode, owner, group, mode, links, ACLs and extended attributes. It is
 * not atomic for readers (one that reads during the write may see a mix of old and new), so
 * it is done under the caller's lock, as one write followed by truncate and fsync, after a
 * fsynced copy of the original is kept beside the file (`.<name>.<random>.bak`, when the
 * directory takes one): if the process dies mid-write, that copy holds the old content.
 */
export async function writeFilesAtomically(files: readonly FileContent[]): Promise<void> {
  const prepared: PreparedFile[] = [];
  try {
    for (const file of files) prepared.push(await prepare(file));
    for (const file of prepared) await commit(file);
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

async function commit(file: PreparedFile): Promise<void> {
  if (file.strategy === 'rename') {
    await rename(file.temporary, file.target).catch((error: unknown) => {
      throw writeError(file.path, 'rename', error);
    });
    file.committed = true;
    await syncDirectory(dirname(file.target));
    return;
  }
  // Marked first: a write that fails half-way must be undone too.
  file.committed = true;
  await writeInPlace(file.target, file.content).catch((error: unknown) => {
    throw writeError(file.path, 'write', error);
  });
}

async function rollBack(prepared: readonly PreparedFile[]): Promise<void> {
  for (const file of prepared) {
    if (file.strategy === 'in-place') {
      if (file.committed) await writeInPlace(file.target, file.original).catch(() => undefined);
      if (file.backup) await unlink(file.backup).catch(() => undefined);
    } else if (!file.committed) {
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
  let existing: Stats | undefined;
  try {
    existing = await stat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw writeError(file.path, 'stat', error);
    await mkdir(directory, { recursive: true, mode: 0o755 }).catch((cause: unknown) => {
      throw writeError(file.path, 'mkdir', cause);
    });
  }
  if (existing && existing.nlink > 1) return prepareInPlace(file, target);
  const mode = existing ? existing.mode & 0o7777 : NEW_FILE_MODE;
  const temporary = siblingName(target, 'tmp');
  let handle;
  try {
    handle = await open(temporary, 'wx', mode);
  } catch (error) {
    if (existing && NOT_PERMITTED.has(errorCode(error))) return prepareInPlace(file, target);
    throw writeError(file.path, 'create a temporary file for', error);
  }
  let keepsOwner = true;
  try {
    if (existing) keepsOwner = await giveOwner(temporary, existing, await handle.stat());
    if (keepsOwner) {
      await handle.chmod(mode); // open's mode is reduced by the umask; chown clears set-id bits
      await handle.writeFile(file.content, 'utf8');
      await handle.sync();
    }
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    throw writeError(file.path, 'write', error);
  }
  if (!keepsOwner) {
    await unlink(temporary).catch(() => undefined);
    return prepareInPlace(file, target);
  }
  let backup = '';
  if (existing) {
    backup = siblingName(target, 'bak');
    try {
      await link(target, backup);
    } catch {
      await copyFile(target, backup).catch(async (error: unknown) => {
        await unlink(temporary).catch(() => undefined);
        throw writeError(file.path, 'back up', error);
      });
    }
  }
  return {
    path: file.path,
    target,
    backup,
    committed: false,
    strategy: 'rename',
    temporary,
  };
}

/**
 * giveOwner gives the temporary file the original's owner and group; false when this process
 * may not (not root, and not the owner and a member of the group), so a rename would change them.
 */
async function giveOwner(temporary: string, original: Stats, created: Stats): Promise<boolean> {
  if (created.uid === original.uid && created.gid === original.gid) return true;
  try {
    await chown(temporary, original.uid, original.gid);
    return true;
  } catch (error) {
    if (NOT_PERMITTED.has(errorCode(error))) return false;
    throw error;
  }
}

/** prepareInPlace reads the original for rollback and keeps a fsynced copy of it when it can. */
async function prepareInPlace(file: FileContent, target: string): Promise<PreparedFile> {
  let original: Buffer;
  try {
    original = await readFile(target);
  } catch (error) {
    throw writeError(file.path, 'read', error);
  }
  let backup = siblingName(target, 'bak');
  try {
    const handle = await open(backup, 'wx', 0o600);
    try {
      await handle.writeFile(original);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The directory takes no file: the original stays in memory for a rollback only.
    await unlink(backup).catch(() => undefined);
    backup = '';
  }
  return {
    path: file.path,
    target,
    backup,
    committed: false,
    strategy: 'in-place',
    content: Buffer.from(file.content, 'utf8'),
    original,
  };
}

/** writeInPlace overwrites the file's bytes in its own inode: write, truncate, fsync. */
async function writeInPlace(target: string, content: Buffer): Promise<void> {
  const handle = await open(target, 'r+');
  try {
    let written = 0;
    while (written < content.length) {
      const { bytesWritten } = await handle.write(
        content,
        written,
        content.length - written,
        written,
      );
      written += bytesWritten;
    }
    await handle.truncate(content.length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function siblingName(target: string, suffix: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.${suffix}`);
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

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? '';
}

function writeError(path: string, action: string, error: unknown): KubeconfigError {
  if (error instanceof KubeconfigError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'failed';
  return new KubeconfigError('ERR_CONFIG_WRITE', `cannot ${action} kubeconfig "${path}": ${code}`, {
    path,
    cause: error,
  });
}
