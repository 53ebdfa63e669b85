import { isForbidden } from '@k/rest';
import { useTestNamespace } from '@k/testenv/vitest';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RemoteCommandError } from '../src/index.js';
import { caught } from '@k/test-utils';
import { clientsetFor, eventually, useUserClientsets } from './helpers.js';
import { finish, kwokObject, readAll, runningPod } from './pod-streams-helpers.js';

// exec and attach over WebSockets: client → kube-apiserver (v5: its WebSocket-to-SPDY
// translator; v4: proxied as it is) → kwok's kubelet API, which runs the command on this machine
// in the Exec object's workDir, or streams the Attach object's file.
const namespace = useTestNamespace({ prefix: 'clientset-exec' });
const scratch = await mkdtemp(join(tmpdir(), 'clientset-exec-'));
const users = useUserClientsets();

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function execPod(name: string): Promise<void> {
  await kwokObject(namespace.name, 'Exec', name, {
    execs: [{ local: { workDir: scratch, envs: [{ name: 'GREETING', value: 'hello' }] } }],
  });
  await runningPod(users.admin, namespace.name, name);
  // kwok picks the object up within about a second: the first exec is retried until it runs.
  await eventually(async () => {
    const output = await finish(
      await users.tester.coreV1.pods(namespace.name).exec(name, { command: ['true'] }),
    );
    expect(output.error).toBeUndefined();
  });
}

describe('exec', () => {
  it('runs echo, feeds stdin to a command and reports stdout, stderr and success (v5)', async () => {
    await execPod('shell');
    const pods = users.tester.coreV1.pods(namespace.name);

    const echo = await pods.exec('shell', {
      command: ['sh', '-c', 'echo "$GREETING from $(pwd)"'],
    });
    expect(echo.protocol).toBe('v5.channel.k8s.io');
    expect(await finish(echo)).toMatchObject({
      stdout: `hello from ${scratch}\n`,
      stderr: '',
      result: { exitCode: 0 },
    });

    // kwok never closes the command's stdin pipe (its exec copies stdin without closing), so the
    // command reads what it needs rather than to end of input.
    const cat = await pods.exec('shell', {
      command: ['sh', '-c', 'head -c 11; echo " and error" >&2'],
      stdin: true,
    });
    expect(await finish(cat, 'from stdin\n')).toMatchObject({
      stdout: 'from stdin\n',
      stderr: ' and error\n',
      result: { exitCode: 0 },
    });
  });

  it('passes a large stdin through and back with back-pressure (cat of 8 MiB)', async () => {
    await execPod('big');
    const size = 8 * 1024 * 1024;
    const session = await users.tester.coreV1
      .pods(namespace.name)
      .exec('big', { command: ['head', '-c', String(size)], stdin: true, stderr: false });
    const chunk = Buffer.alloc(256 * 1024, 'k');
    let written = 0;
    const writing = (async () => {
      const stdin = session.stdin!;
      while (written < size) {
        written += chunk.length;
        // write() returning false is back-pressure from the socket: wait for it to drain.
        if (!stdin.write(chunk)) await new Promise((resolve) => stdin.once('drain', resolve));
      }
      stdin.end();
    })();
    let received = 0;
    for await (const data of session.stdout!) received += (data as Buffer).length;
    await writing;
    expect(received).toBe(size);
    expect((await session.result).exitCode).toBe(0);
  });

  it('reports a failing command as a RemoteCommandError with the Status from the error channel', async () => {
    await execPod('failing');
    const session = await users.tester.coreV1
      .pods(namespace.name)
      .exec('failing', { command: ['sh', '-c', 'echo partial; exit 3'] });
    const output = await finish(session);
    expect(output.stdout).toBe('partial\n');
    // A kubelet sends reason NonZeroExitCode with the code as a cause (a result: { exitCode: 3 });
    // kwok wraps the exit error, so its Status is an InternalError that names the exit status.
    expect(output.error).toBeInstanceOf(RemoteCommandError);
    const error = output.error as RemoteCommandError;
    expect(error.code).toBe('ERR_CLIENTSET_REMOTE_COMMAND');
    expect(error.status.status).toBe('Failure');
    expect(error.reason).toBe('InternalError');
    expect(error.status.message).toContain('exit status 3');
  });

  it('falls back to v4.channel.k8s.io where only that is offered', async () => {
    await execPod('old');
    const session = await users.tester.coreV1.pods(namespace.name).exec('old', {
      command: ['sh', '-c', 'head -c 3; echo; echo to stderr >&2'],
      stdin: true,
      protocols: ['v4.channel.k8s.io'],
    });
    expect(session.protocol).toBe('v4.channel.k8s.io');
    expect(await finish(session, 'abc')).toMatchObject({
      stdout: 'abc\n',
      stderr: 'to stderr\n',
      result: { exitCode: 0 },
    });
  });

  it('gives a tty the terminal size and resizes it (channel 4)', async () => {
    await execPod('terminal');
    const session = await users.tester.coreV1.pods(namespace.name).exec('terminal', {
      command: ['sh', '-c', 'sleep 0.5; stty size; read line; stty size; sleep 0.3'],
      stdin: true,
      tty: true,
      terminalSize: { columns: 100, rows: 30 },
    });
    expect(session.stderr).toBeNull();
    const output = readAll(session.stdout);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    session.resize({ columns: 120, rows: 40 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    session.stdin!.write('go\r');
    expect(await session.result).toMatchObject({ exitCode: 0 });
    const lines = (await output).split('\r\n');
    expect(lines).toContain('30 100');
    expect(lines).toContain('40 120');
    expect(lines.indexOf('30 100')).toBeLessThan(lines.indexOf('40 120'));
  });

  it('ends the session when the signal aborts, with the reason', async () => {
    await execPod('sleeper');
    const controller = new AbortController();
    const session = await users.tester.coreV1
      .pods(namespace.name)
      .exec('sleeper', { command: ['sleep', '30'], signal: controller.signal });
    const reason = new Error('stop now');
    setTimeout(() => controller.abort(reason), 200);
    const started = Date.now();
    await expect(session.result).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('is refused for alice with a typed 403', async () => {
    await execPod('guarded');
    const error = await caught(
      users.alice.coreV1.pods(namespace.name).exec('guarded', { command: ['true'] }),
    );
    expect(isForbidden(error)).toBe(true);
    expect((error as { statusCode: number }).statusCode).toBe(403);
  });

  it('goes through the transport’s impersonation like every request: admin as alice is refused', async () => {
    await execPod('impersonated');
    const asAlice = await clientsetFor('admin', { overrides: { impersonate: 'alice' } });
    try {
      const error = await caught(
        asAlice.coreV1.pods(namespace.name).exec('impersonated', { command: ['true'] }),
      );
      expect(isForbidden(error)).toBe(true);
      expect((error as Error).message).toContain('User "alice"');
    } finally {
      await asAlice.close();
    }
  });
});

describe('attach', () => {
  it('streams what the container writes from now on; refused for alice', async () => {
    const file = join(scratch, 'attached.log');
    await writeFile(file, '');
    await kwokObject(namespace.name, 'Attach', 'attached', {
      attaches: [{ containers: ['main'], logsFile: file }],
    });
    await runningPod(users.admin, namespace.name, 'attached');
    const pods = users.tester.coreV1.pods(namespace.name);
    const text = await eventually(async () => {
      const session = await pods.attach('attached', { container: 'main', stderr: false });
      expect(session.protocol).toBe('v5.channel.k8s.io');
      let received = '';
      session.stdout!.on('data', (chunk) => (received += String(chunk)));
      try {
        await eventually(async () => {
          await appendFile(
            file,
            `${new Date().toISOString().replace('Z', '000000Z')} stdout F line from the container\n`,
          );
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect(received).toContain('line from the container');
        }, 10_000);
      } finally {
        session.close();
      }
      await session.result.catch(() => undefined);
      return received;
    });
    expect(text).toContain('line from the container\n');
    expect(
      isForbidden(await caught(users.alice.coreV1.pods(namespace.name).attach('attached'))),
    ).toBe(true);
  });
});
