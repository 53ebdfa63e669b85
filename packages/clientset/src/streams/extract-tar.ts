import { constants } from 'node:fs';
import { lstat, mkdir, open, symlink, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { readTar } from './tar.js';

/** SkippedEntry is an archive entry that extraction refused, and why. */
export interface SkippedEntry {
  /** path is the entry's name as the archive has it. */
  path: string;
  reason: string;
}

/** ExtractResult is what {@link extractTar} did. */
export interface ExtractResult {
  /** written are the paths created (relative to the destination's parent, `/`-separated). */
  written: string[];
  skipped: SkippedEntry[];
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * extractTar writes the entries of a tar stream under `destination`, for `kubectl cp` from a
 * container: the archive's top entry `archiveRoot` (and what is under it) becomes `destination`
 * (and what is under it). The archive is not trusted — it is whatever the container's `tar`
 * wrote — so an entry is skipped (and listed in `skipped`), never written, when its name is
 * absolute, has a `..` component, is outside `archiveRoot`, leads through a symbolic link
 * (nothing is written through a link, even one inside the destination), or is a symbolic link
 * whose target is absolute or leaves the destination. Hard links, devices and FIFOs are skipped
 * too. Files are opened with `O_NOFOLLOW`, modes are masked to permission bits.
 */
export async function extractTar(
  source: AsyncIterable<Buffer>,
  destination: string,
  archiveRoot: string,
): Promise<ExtractResult> {
  const target = resolve(destination);
  const parent = dirname(target);
  const written: string[] = [];
  const skipped: SkippedEntry[] = [];
  for await (const entry of readTar(source)) {
    const { header } = entry;
    const skip = (reason: string): void => {
      skipped.push({ path: header.name, reason });
    };
    const name = header.name.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
    if (header.name.startsWith('/')) {
      skip('an absolute path');
      continue;
    }
    const parts = name.split('/').filter((part) => part !== '' && part !== '.');
    if (parts.includes('..')) {
      skip('a path with ..');
      continue;
    }
    if (parts.length === 0 || parts[0] !== archiveRoot) {
      skip(`outside the copied path ${archiveRoot}`);
      continue;
    }
    const path = join(target, ...parts.slice(1));
    if (!inside(target, path)) {
      skip('outside the destination');
      continue;
    }
    const blocked = await linkOnTheWay(target, parts.slice(1));
    if (blocked) {
      skip(`through the symbolic link ${blocked}`);
      continue;
    }
    const shown = relative(parent, path).split(sep).join('/');
    switch (header.type) {
      case 'directory':
        await mkdir(path, { recursive: true, mode: (header.mode & 0o777) | 0o700 });
        written.push(shown);
        break;
      case 'file': {
        await mkdir(dirname(path), { recursive: true });
        const wrote = await writeFile(path, header.mode, entry.body());
        if (wrote) written.push(shown);
        else skip('the destination is a symbolic link or a directory');
        break;
      }
      case 'symlink': {
        const link = header.linkname;
        if (isAbsolute(link) || posix.isAbsolute(link)) {
          skip(`a symbolic link to the absolute path ${link}`);
          break;
        }
        if (!inside(target, resolve(dirname(path), link))) {
          skip(`a symbolic link to ${link}, outside the destination`);
          break;
        }
        await mkdir(dirname(path), { recursive: true });
        await replaceWithLink(path, link);
        written.push(shown);
        break;
      }
      default:
        skip(`an unsupported entry type (${header.type})`);
    }
  }
  return { written, skipped };
}

/** linkOnTheWay returns the first existing symbolic link among the parents of `parts` under `root`. */
async function linkOnTheWay(root: string, parts: readonly string[]): Promise<string | undefined> {
  // The destination itself is the caller's choice; below it, no link is followed.
  let path = root;
  for (const part of parts.slice(0, -1)) {
    path = join(path, part);
    try {
      if ((await lstat(path)).isSymbolicLink()) return path;
    } catch {
      return undefined; // Missing: nothing below it can be a link yet.
    }
  }
  return undefined;
}

async function writeFile(
  path: string,
  mode: number,
  body: AsyncIterable<Buffer>,
): Promise<boolean> {
  let handle;
  try {
    handle = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      mode & 0o777,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EISDIR') {
      for await (const chunk of body) void chunk; // skip the content
      return false;
    }
    throw error;
  }
  try {
    for await (const chunk of body) await handle.write(chunk);
  } finally {
    await handle.close();
  }
  return true;
}

async function replaceWithLink(path: string, link: string): Promise<void> {
  try {
    await symlink(link, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if ((await lstat(path)).isDirectory()) throw error;
    await unlink(path);
    await symlink(link, path);
  }
}
