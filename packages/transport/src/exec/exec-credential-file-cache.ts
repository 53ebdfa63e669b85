import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Credentials } from '../auth/credential-provider.js';
import { expectOptionalInteger, expectOptions, expectString } from '../checks/argument-checks.js';

/** EXEC_CREDENTIAL_CACHE_DIR_ENV_VAR names the variable that turns the cross-process cache on. */
export const EXEC_CREDENTIAL_CACHE_DIR_ENV_VAR = 'K_EXEC_CREDENTIAL_CACHE_DIR';

const FORMAT = 1;
const MAX_FILE_BYTES = 1024 * 1024;
/** Opening never follows a symbolic link nor waits for a FIFO's writer. */
const OPEN_FOR_READING =
  constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const CHECKS_OWNERS = process.platform !== 'win32';

/** ExecCredentialFileCacheOptions tune {@link ExecCredentialFileCache}. */
export interface ExecCredentialFileCacheOptions {
  /**
   * userId is the user who must own the directory and the files (default: this process's
   * user). Not checked on Windows.
   */
  userId?: number | undefined;
}

interface CacheFileContent {
  format: number;
  expiresAt: string;
  authorization?: string;
  certificate?: string;
  key?: string;
}

/**
 * ExecCredentialFileCache keeps exec plugin credentials in files so that short-lived processes
 * (CLIs) do not re-run a slow plugin: one file `<sha256 key>.json` per exec config + cluster in
 * `directory` (created 0700), each written atomically (a 0600 temporary file in the same
 * directory, then `rename`). Only credentials with an expiry are stored (nothing else would ever
 * make a stored credential stale).
 *
 * The directory must be safe, by the rule SSH applies to `~/.ssh` (client-go has no such
 * cache): owned by this user and not writable by group or others, else anyone who can write
 * there could plant credentials or swap files. An unsafe directory is not used at all — reads
 * find nothing, writes store nothing — and a warning (`process.emitWarning`, code
 * `K_EXEC_CREDENTIAL_CACHE_UNSAFE`) says so once per cache. A file that is missing, corrupt, of
 * another format, not a regular file (a FIFO, a device, a symbolic link: it is opened with
 * `O_NOFOLLOW | O_NONBLOCK`, so nothing blocks), not owned by this user or readable by others is
 * ignored, as if absent; it is replaced by the next write. Failures to write or delete are
 * swallowed: the cache is an optimisation, never a reason for a request to fail. Processes do
 * not lock each other out: two processes that miss at once both run the plugin, and the last
 * write wins.
 */
export class ExecCredentialFileCache {
  readonly directory: string;
  readonly #userId: number | undefined;
  #warned = false;

  constructor(directory: string, options: ExecCredentialFileCacheOptions = {}) {
    const where = 'ExecCredentialFileCache';
    expectString(directory, where, 'directory');
    const checked = expectOptions(options, where) as Record<string, unknown>;
    expectOptionalInteger(checked.userId, where, 'options.userId', 0);
    this.directory = directory;
    this.#userId = CHECKS_OWNERS ? (options.userId ?? process.getuid?.()) : undefined;
  }

  /** keyFor hashes what identifies a credential (exec config and cluster) into a file name. */
  static keyFor(material: unknown): string {
    return createHash('sha256').update(JSON.stringify(material)).digest('hex');
  }

  /** pathFor is the file that holds the credential of `key`. */
  pathFor(key: string): string {
    return join(this.directory, `${key}.json`);
  }

  /** read returns the stored credential of `key`, or undefined (missing, corrupt, unsafe). */
  async read(key: string): Promise<Credentials | undefined> {
    if (!(await this.#safeDirectory())) return undefined;
    let handle;
    try {
      handle = await open(this.pathFor(key), OPEN_FOR_READING);
    } catch {
      return undefined;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size > MAX_FILE_BYTES) return undefined;
      if (CHECKS_OWNERS) {
        if ((stats.mode & 0o077) !== 0) return undefined;
        if (this.#userId !== undefined && stats.uid !== this.#userId) return undefined;
      }
      return decode(await handle.readFile('utf8'));
    } catch {
      return undefined;
    } finally {
      await handle.close().catch(() => {});
    }
  }

  /** write stores `credentials` under `key` if they have an expiry; atomic, mode 0600. */
  async write(key: string, credentials: Credentials): Promise<void> {
    if (!credentials.expiresAt) return;
    const content: CacheFileContent = {
      format: FORMAT,
      expiresAt: credentials.expiresAt.toISOString(),
    };
    if (credentials.authorization) content.authorization = credentials.authorization;
    if (credentials.clientCertificate) {
      content.certificate = credentials.clientCertificate.certificate;
      content.key = credentials.clientCertificate.key;
    }
    const path = this.pathFor(key);
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      if (!(await this.#safeDirectory())) return;
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(content)}\n`);
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
    } catch {
      await unlink(temporary).catch(() => {});
    }
  }

  /**
   * delete removes the stored credential of `key` if it is `rejected` (or unconditionally when
   * `rejected` is absent), so a credential the server refused is not handed to the next process;
   * a newer one written by another process is kept.
   */
  async delete(key: string, rejected?: Credentials): Promise<void> {
    if (rejected) {
      const stored = await this.read(key);
      if (!stored || !sameCredentials(stored, rejected)) return;
    } else if (!(await this.#safeDirectory())) return;
    await unlink(this.pathFor(key)).catch(() => {});
  }

  /** #safeDirectory checks the directory (a missing one is safe: there is nothing in it). */
  async #safeDirectory(): Promise<boolean> {
    let stats;
    try {
      stats = await stat(this.directory);
    } catch {
      return true;
    }
    let problem: string | undefined;
    if (!stats.isDirectory()) problem = 'it is not a directory';
    else if (CHECKS_OWNERS && this.#userId !== undefined && stats.uid !== this.#userId) {
      problem = `it is not owned by user ${this.#userId}`;
    } else if (CHECKS_OWNERS && (stats.mode & 0o022) !== 0) {
      problem = 'it is writable by group or others';
    }
    if (problem === undefined) return true;
    if (!this.#warned) {
      this.#warned = true;
      process.emitWarning(`exec credential cache ${this.directory} is not used: ${problem}`, {
        code: 'K_EXEC_CREDENTIAL_CACHE_UNSAFE',
      });
    }
    return false;
  }
}

/** sameCredentials compares the parts of two credentials a server sees. */
export function sameCredentials(left: Credentials, right: Credentials): boolean {
  return (
    left === right ||
    (left.authorization === right.authorization &&
      left.clientCertificate?.certificate === right.clientCertificate?.certificate &&
      left.clientCertificate?.key === right.clientCertificate?.key)
  );
}

function decode(text: string): Credentials | undefined {
  const content = JSON.parse(text) as Partial<CacheFileContent> | null;
  if (typeof content !== 'object' || content === null || content.format !== FORMAT)
    return undefined;
  if (typeof content.expiresAt !== 'string') return undefined;
  const expiresAt = new Date(content.expiresAt);
  if (Number.isNaN(expiresAt.getTime())) return undefined;
  const credentials: Credentials = { expiresAt };
  if (content.authorization !== undefined) {
    if (typeof content.authorization !== 'string' || !content.authorization) return undefined;
    credentials.authorization = content.authorization;
  }
  if (content.certificate !== undefined || content.key !== undefined) {
    if (typeof content.certificate !== 'string' || typeof content.key !== 'string')
      return undefined;
    credentials.clientCertificate = { certificate: content.certificate, key: content.key };
  }
  if (!credentials.authorization && !credentials.clientCertificate) return undefined;
  return credentials;
}
