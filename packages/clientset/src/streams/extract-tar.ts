import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { wholeCharacters } from './bounded-text.js';
import { readTar } from './tar.js';

/** SkippedEntry is an archive entry that extraction refused, and why. */
export interface SkippedEntry {
  /** path is the entry's name as the archive has it (its first 4096 bytes when longer). */
  path: string;
  reason: string;
  /** linkname is a link's target as the archive has it (first 4096 bytes), for links only. */
  linkname?: string | undefined;
}

/** ExtractResult is what {@link extractTar} did. */
export interface ExtractResult {
  /**
   * written are the paths created (relative to the destination's parent, `/`-separated), the
   * first `maxListedEntries` of them.
   */
  written: string[];
  /** writtenCount counts every path created, listed or not. */
  writtenCount: number;
  /** skipped are the entries refused, the first `maxListedEntries` of them. */
  skipped: SkippedEntry[];
  /** skippedCount counts every entry refused, listed or not. */
  skippedCount: number;
}

/** ExtractOptions tune {@link extractTar}. */
export interface ExtractOptions {
  /** maxListedEntries bounds `written` and `skipped` each (default {@link MAX_LISTED_ENTRIES}). */
  maxListedEntries?: number | undefined;
}

/** MAX_LISTED_ENTRIES is how many written and skipped entries a result lists by default. */
const MAX_LISTED_ENTRIES = 1000;

/**
 * MAX_NAME_BYTES is the longest entry name extracted: Linux's PATH_MAX, so no longer name could
 * be created anyway.
 */
export const MAX_NAME_BYTES = 4096;

/**
 * MAX_DEPTH is how many levels below the destination an entry may lie. Each new level costs a
 * `mkdir` (and an `lstat`) that walks the whole path, so a deep name is expensive for the few
 * bytes it takes in the archive; real trees stay far above this bound.
 */
export const MAX_DEPTH = 256;

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** clipped cuts an archive's text to {@link MAX_NAME_BYTES} bytes, on a character boundary. */
function clipped(text: string): string {
  if (text.length <= MAX_NAME_BYTES / 4) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_NAME_BYTES) return text;
  const head = bytes.subarray(0, MAX_NAME_BYTES);
  return head.subarray(0, wholeCharacters(head)).toString('utf8');
}

/**
 * extractTar writes the entries of a tar stream under `destination`, for `kubectl cp` from a
 * container: the archive's top entry `archiveRoot` (and what is under it) becomes `destination`
 * (and what is under it). The archive is not trusted — it is whatever the container's `tar`
 * wrote — so only directories and regular files are written, and only inside the destination.
 * Skipped (and listed in `skipped`), never written: every symbolic link, as kubectl cp skips
 * them (so no link a later entry could climb through ever exists), hard links, devices and
 * FIFOs, names that are absolute, have a `..` component, lie outside `archiveRoot`, are over
 * {@link MAX_NAME_BYTES} bytes or {@link MAX_DEPTH} levels deep, and entries that would lead through a symbolic link already in
 * the destination (stricter than kubectl, which follows those). Files are opened with
 * `O_NOFOLLOW`, modes are masked to permission bits. The lists are bounded by
 * `maxListedEntries`; the counts are not.
 */
export async function extractTar(
  source: AsyncIterable<Buffer>,
  destination: string,
  archiveRoot: string,
  options: ExtractOptions = {},
): Promise<ExtractResult> {
  const maxListed = options.maxListedEntries ?? MAX_LISTED_ENTRIES;
  const target = resolve(destination);
  const parent = dirname(target);
  const directories = new KnownDirectories(target);
  const result: ExtractResult = { written: [], writtenCount: 0, skipped: [], skippedCount: 0 };
  const wrote = (shown: string): void => {
    result.writtenCount += 1;
    if (result.written.length < maxListed) result.written.push(shown);
  };
  for await (const entry of readTar(source)) {
    const { header } = entry;
    const skip = (reason: string): void => {
      result.skippedCount += 1;
      if (result.skipped.length >= maxListed) return;
      result.skipped.push({
        path: clipped(header.name),
        reason,
        ...(header.type === 'symlink' || header.type === 'hardlink'
          ? { linkname: clipped(header.linkname) }
          : {}),
      });
    };
    if (Buffer.byteLength(header.name) > MAX_NAME_BYTES) {
      skip(`a name over ${MAX_NAME_BYTES} bytes`);
      continue;
    }
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
    if (parts.length - 1 > MAX_DEPTH) {
      skip(`deeper than ${MAX_DEPTH} levels`);
      continue;
    }
    const path = join(target, ...parts.slice(1));
    if (!inside(target, path)) {
      skip('outside the destination');
      continue;
    }
    // Only directories and files from here: links of either kind are never made.
    if (header.type === 'symlink') {
      skip('a symbolic link (kubectl cp skips them too)');
      continue;
    }
    if (header.type === 'hardlink') {
      skip('a hard link');
      continue;
    }
    if (header.type === 'other') {
      skip('a device, FIFO or other special file');
      continue;
    }
    const { link, pending } = await directories.linkOnTheWay(parts.slice(1));
    if (link) {
      skip(`through the symbolic link ${link}`);
      continue;
    }
    const shown = relative(parent, path).split(sep).join('/');
    if (header.type === 'directory') {
      await mkdir(path, { recursive: true, mode: (header.mode & 0o777) | 0o700 });
      directories.remember(pending);
      wrote(shown);
      continue;
    }
    await mkdir(dirname(path), { recursive: true });
    directories.remember(pending);
    if (await writeFile(path, header.mode, entry.body())) wrote(shown);
    else skip('the destination is a symbolic link or a directory');
  }
  return result;
}

/** MAX_KNOWN_DIRECTORIES bounds the directories {@link KnownDirectories} remembers. */
const MAX_KNOWN_DIRECTORIES = 4096;

/**
 * KnownDirectories finds symbolic links already on the way to an entry, looking only at
 * directories it has not seen before: it remembers those it found to be real directories, or
 * made. Nothing else writes in the destination meanwhile, and the extraction makes no link, so
 * one look each is enough — checking every parent of every entry anew would cost as many
 * `lstat`s per entry as the path is deep, each walking the whole path (seconds per entry at
 * PATH_MAX depth).
 */
class KnownDirectories {
  readonly #root: string;
  readonly #known = new Set<string>();

  constructor(root: string) {
    this.#root = root;
  }

  /**
   * linkOnTheWay returns the first existing symbolic link among the parents of `parts` under
   * the root, and `pending`: the parents not known yet, to {@link remember} once made.
   */
  async linkOnTheWay(
    parts: readonly string[],
  ): Promise<{ link: string | undefined; pending: string[] }> {
    // The root itself is the caller's choice; below it, no link is followed.
    const pending: string[] = [];
    let path = join(this.#root, ...parts.slice(0, -1));
    for (let depth = parts.length - 1; depth > 0 && !this.#known.has(path); depth -= 1) {
      pending.push(path);
      path = path.slice(0, path.lastIndexOf(sep)); // parts hold no `.`, `..` or empty names
    }
    pending.reverse();
    for (const directory of pending) {
      let isLink: boolean;
      try {
        isLink = (await lstat(directory)).isSymbolicLink();
      } catch {
        break; // Missing: nothing below it can be a link yet.
      }
      if (isLink) return { link: directory, pending: [] };
    }
    return { link: undefined, pending };
  }

  /** remember records directories that exist now, found or made without a link on the way. */
  remember(directories: readonly string[]): void {
    if (this.#known.size + directories.length > MAX_KNOWN_DIRECTORIES) this.#known.clear();
    for (const directory of directories.slice(-MAX_KNOWN_DIRECTORIES)) this.#known.add(directory);
  }
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
