import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { ClientsetError } from '../errors.js';
import { BoundedText, MAX_QUOTED_BYTES } from './bounded-text.js';
import { extractTar, type ExtractResult } from './extract-tar.js';
import { keepAliveOf, type KeepAliveOptions } from './keep-alive.js';
import type { ExecOptions, RemoteCommandSession } from './remote-command.js';
import { encodeHeader, endOfArchive, padding } from './tar.js';

/** CopyOptions are the options of `copyToPod` and `copyFromPod` (the keep-alive is the exec's). */
export interface CopyOptions extends KeepAliveOptions {
  /** container names the container; required when the pod has more than one. */
  container?: string | undefined;
  /** signal aborts the copy. */
  signal?: AbortSignal | undefined;
  /**
   * maxListedEntries bounds the `written` and `skipped` lists of `copyFromPod`'s result (default
   * 1000 each; `writtenCount` and `skippedCount` count them all).
   */
  maxListedEntries?: number | undefined;
}

/** CopyFromPodResult is what `copyFromPod` wrote, and the archive entries it refused. */
export type CopyFromPodResult = ExtractResult;

/** ExecFunction runs a command in the pod (the resource client's `exec`). */
export type ExecFunction = (options: ExecOptions) => Promise<RemoteCommandSession>;

function copyError(message: string, cause?: unknown): ClientsetError {
  return new ClientsetError('ERR_CLIENTSET_COPY', message, { resource: 'pods', cause });
}

async function write(stream: Writable, data: Buffer): Promise<void> {
  if (stream.write(data)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (): void => {
      stream.off('error', fail);
      resolve();
    };
    const fail = (error: Error): void => {
      stream.off('drain', done);
      reject(error);
    };
    stream.once('drain', done);
    stream.once('error', fail);
  });
}

/**
 * packTar writes `source` (a file, a directory tree, a symbolic link — not followed) to `stream`
 * as a tar archive whose top entry is named `name`, reading files as the stream drains.
 */
export async function packTar(source: string, name: string, stream: Writable): Promise<void> {
  let written = 0;
  const emit = async (data: Buffer): Promise<void> => {
    written += data.length;
    await write(stream, data);
  };
  const walk = async (path: string, entryName: string): Promise<void> => {
    const stats = await lstat(path);
    const common = {
      name: entryName,
      mode: stats.mode & 0o7777,
      mtimeSeconds: stats.mtimeMs / 1000,
    };
    if (stats.isSymbolicLink()) {
      await emit(
        encodeHeader({ ...common, type: 'symlink', size: 0, linkname: await readlink(path) }),
      );
    } else if (stats.isDirectory()) {
      await emit(
        encodeHeader({
          ...common,
          name: `${entryName}/`,
          type: 'directory',
          size: 0,
          linkname: '',
        }),
      );
      for (const child of (await readdir(path)).sort()) {
        await walk(join(path, child), `${entryName}/${child}`);
      }
    } else if (stats.isFile()) {
      await emit(encodeHeader({ ...common, type: 'file', size: stats.size, linkname: '' }));
      let size = 0;
      for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > stats.size) throw copyError(`${path} grew while it was copied`);
        await emit(chunk);
      }
      if (size !== stats.size) throw copyError(`${path} shrank while it was copied`);
      await emit(Buffer.alloc(padding(size)));
    }
    // Sockets, FIFOs and devices are left out, as kubectl cp leaves them.
  };
  await walk(source, name);
  await emit(endOfArchive(written));
}

/** remoteParts splits a container path into the directory to run tar in and the entry name. */
function remoteParts(path: string): { directory: string; name: string } {
  const trimmed = path.replace(/\/+$/, '');
  const name = posix.basename(trimmed);
  if (name === '' || name === '.' || name === '..') {
    throw new ClientsetError(
      'ERR_CLIENTSET_INVALID_ARGUMENT',
      `copy: the container path ${JSON.stringify(path)} must name a file or directory`,
      { resource: 'pods' },
    );
  }
  const directory = posix.dirname(trimmed);
  return { directory: directory === '' ? '.' : directory, name };
}

/**
 * stderrTail reads the container's stderr to its end (the command must not block on it) and
 * keeps its last {@link MAX_QUOTED_BYTES} bytes, decoded whole and without control characters:
 * what the error quotes, however much the container writes.
 */
async function stderrTail(stream: Readable | null): Promise<string> {
  if (!stream) return '';
  const tail = new BoundedText(MAX_QUOTED_BYTES, 'tail');
  for await (const chunk of stream) tail.push(chunk as Buffer);
  return tail.text();
}

async function finished(
  session: RemoteCommandSession,
  what: string,
  stderr: Promise<string>,
): Promise<void> {
  let failure: unknown;
  let exitCode = 0;
  try {
    exitCode = (await session.result).exitCode;
  } catch (error) {
    failure = error;
  }
  if (failure === undefined && exitCode === 0) return;
  const text = await stderr.catch(() => '');
  throw copyError(
    `${what} failed${exitCode ? ` with exit code ${exitCode}` : ''}${text ? `: ${text}` : ''}`,
    failure,
  );
}

/** ENDING_GRACE_MS is how long a session whose output ended may take to say how it ended. */
const ENDING_GRACE_MS = 10_000;

/**
 * ending ends a session whose archive could not be read. When its stdout ended (the archive
 * was cut short: the container's tar died, and the server is ending the session), it waits a
 * little for the result, whose failure and stderr say why; otherwise it closes the session.
 */
async function ending(session: RemoteCommandSession): Promise<void> {
  if (!session.stdout?.readableEnded) {
    session.close();
    return;
  }
  const timer = setTimeout(() => session.close(), ENDING_GRACE_MS);
  try {
    await session.result.catch(() => undefined);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * copyToPod copies `source` (a local file or directory) to `destination` in the container, as
 * `kubectl cp` does: a tar archive on the stdin of `tar -xmf - -C <destination's directory>`,
 * whose top entry is named after the destination. The directory must exist in the container.
 */
export async function copyToPod(
  exec: ExecFunction,
  source: string,
  destination: string,
  options: CopyOptions,
): Promise<void> {
  const { directory, name } = remoteParts(destination);
  await lstat(source); // a missing source fails here, before anything runs in the container
  const session = await exec({
    command: ['tar', '-xmf', '-', '-C', directory],
    stdin: true,
    stdout: false,
    ...(options.container ? { container: options.container } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...keepAliveOf(options),
  });
  const stderr = stderrTail(session.stderr);
  const stdin = session.stdin as Writable;
  try {
    await packTar(source, name, stdin);
  } catch (error) {
    session.close();
    throw error instanceof ClientsetError ? error : copyError(`copy of ${source} failed`, error);
  } finally {
    stdin.end();
  }
  await finished(session, `tar in the container (extracting into ${directory})`, stderr);
}

/**
 * copyFromPod copies `source` (a path in the container) to `destination` on this machine, as
 * `kubectl cp` does: `tar cf - -C <source's directory> <source's name>` in the container, whose
 * output is extracted with the path safety of {@link extractTar}: directories and regular files
 * only, symbolic links skipped as kubectl skips them (the result lists what it refused). A
 * failing container tar is a `ClientsetError` `ERR_CLIENTSET_COPY` quoting the end of its stderr.
 */
export async function copyFromPod(
  exec: ExecFunction,
  source: string,
  destination: string,
  options: CopyOptions,
): Promise<CopyFromPodResult> {
  const { directory, name } = remoteParts(source);
  const session = await exec({
    command: ['tar', 'cf', '-', '-C', directory, name],
    ...(options.container ? { container: options.container } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...keepAliveOf(options),
  });
  const stderr = stderrTail(session.stderr);
  let result: CopyFromPodResult;
  try {
    result = await extractTar(session.stdout as Readable, destination, name, {
      maxListedEntries: options.maxListedEntries,
    });
  } catch (error) {
    await ending(session);
    await finished(session, `tar in the container (archiving ${source})`, stderr);
    throw error;
  }
  await finished(session, `tar in the container (archiving ${source})`, stderr);
  return result;
}
