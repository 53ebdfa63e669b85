import { caught } from '@k/test-utils';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientsetError, RemoteCommandError } from '../errors.js';
import { copyFromPod } from './copy.js';
import type { ExecResult, RemoteCommandSession } from './remote-command.js';
import { encodeHeader } from './tar.js';

// copyFromPod over a session whose end is timed here: the container's tar dies mid-archive and
// its failure comes after its stdout ended, an order the real server produces only by chance.
let scratch: string | undefined;

afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** session is an exec session with this stdout and stderr that fails `failAfterMs` after. */
function session(stdout: Buffer, stderr: string, failAfterMs: number): RemoteCommandSession {
  let settle!: (outcome: { result?: ExecResult; error?: Error }) => void;
  const outcome = new Promise<{ result?: ExecResult; error?: Error }>((resolve) => {
    settle = resolve;
  });
  const result = outcome.then(({ result: ended, error }) => {
    if (error) throw error;
    return ended as ExecResult;
  });
  result.catch(() => undefined);
  setTimeout(() => {
    const status = { status: 'Failure', reason: 'InternalError', message: 'exit status 2' };
    settle({ error: new RemoteCommandError('remote command failed: exit status 2', status) });
  }, failAfterMs);
  return {
    protocol: 'v5.channel.k8s.io',
    stdin: null,
    stdout: Readable.from([stdout]),
    stderr: Readable.from([Buffer.from(stderr)]),
    result,
    resize: () => undefined,
    // As a real session: closed on this side before a status came is a success.
    close: () => settle({ result: { exitCode: 0, status: undefined } }),
  };
}

describe('copyFromPod', () => {
  it('reports the failure of a container tar that died mid-archive, with its stderr', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'copy-'));
    const header = encodeHeader({
      name: 'loot/big.bin',
      type: 'file',
      mode: 0o644,
      size: 4096,
      mtimeSeconds: 0,
      linkname: '',
    });
    const cut = Buffer.concat([header, Buffer.alloc(1000)]);
    const exec = () => Promise.resolve(session(cut, 'tar: loot/big.bin: read error', 50));
    const error = await caught(copyFromPod(exec, 'loot', join(scratch, 'out'), {}));
    expect(error).toBeInstanceOf(ClientsetError);
    expect((error as ClientsetError).code).toBe('ERR_CLIENTSET_COPY');
    expect((error as Error).message).toBe(
      'tar in the container (archiving loot) failed: tar: loot/big.bin: read error',
    );
    expect((error as Error).cause).toBeInstanceOf(RemoteCommandError);
  });
});
