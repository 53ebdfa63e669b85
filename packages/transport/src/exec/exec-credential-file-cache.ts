import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Credentials } from '../auth/credential-provider.js';

/** EXEC_CREDENTIAL_CACHE_DIR_ENV_VAR names the variable that turns the cross-process cache on. */
export const EXEC_CREDENTIAL_CACHE_DIR_ENV_VAR = 'K_EXEC_CREDENTIAL_CACHE_DIR';

const FORMAT = 1;
const MAX_FILE_BYTES = 1024 * 1024;

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
 * make a stored credential stale). A file that is missing, corrupt, of another format, not a
 * regular file, not owned by this user or readable by others is ignored, as if absent; it is
 * replaced by the next write. Failures to write or delete are swallowed: the cache is an
 * optimisation, never a reason for a request to fail. Processes do not lock each other out:
 * two processes that miss at once both run the plugin, and the last write wins.
 */
export class ExecCredentialFileCache {
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
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
    let handle;
    try {
      handle = await open(this.pathFor(key), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch {
      return undefined;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size > MAX_FILE_BYTES) return undefined;
      if (process.platform !== 'win32') {
        if ((stats.mode & 0o077) !== 0) return undefined;
        if (typeof process.getuid === 'function' && stats.uid !== process.getuid())
          return undefined;
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
    }
    await unlink(this.pathFor(key)).catch(() => {});
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
