import { caught } from '@k/test-utils';
import { isForbidden } from '@k/rest';
import { readAuditLog, startControlPlane, type ControlPlane, type FaultProxy } from '@k/testenv';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inferClientset, type Clientset, type LogLine } from '../src/index.js';
import { clientsetFor, eventually, useUserClientsets } from './helpers.js';
import { kwokObject, runningPod } from './pod-streams-helpers.js';

// Pod logs through kube-apiserver from kwok, which serves each container's file (CRI log
// format, as a kubelet reads them) as a Logs object names it.
const namespace = useTestNamespace({ prefix: 'clientset-logs' });
const scratch = await mkdtemp(join(tmpdir(), 'clientset-logs-'));
const users = useUserClientsets();

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function criLine(timestamp: string, text: string, stream = 'stdout'): string {
  return `${timestamp} ${stream} F ${text}\n`;
}

function now(): string {
  return new Date().toISOString().replace('Z', '000000Z');
}

async function allLines(lines: AsyncIterable<LogLine>): Promise<LogLine[]> {
  const taken: LogLine[] = [];
  for await (const line of lines) taken.push(line);
  return taken;
}

describe('logLines', () => {
  it('reads every container with timestamps, tailLines, sinceTime and previous', async () => {
    const files = {
      init: join(scratch, 'init.log'),
      web: join(scratch, 'web.log'),
      sidecar: join(scratch, 'sidecar.log'),
      webPrevious: join(scratch, 'web-previous.log'),
    };
    await writeFile(files.init, criLine('2026-01-01T00:00:00.5Z', 'init done'));
    await writeFile(
      files.web,
      criLine('2026-01-01T00:00:01.000000001Z', 'web one') +
        criLine('2026-01-01T00:00:02Z', 'web two', 'stderr') +
        criLine('2026-01-01T00:00:03Z', 'web three'),
    );
    await writeFile(files.sidecar, criLine('2026-01-01T00:00:04Z', 'sidecar one'));
    await writeFile(files.webPrevious, criLine('2025-12-31T23:59:59Z', 'web before restart'));
    await kwokObject(namespace.name, 'Logs', 'multi', {
      logs: [
        { containers: ['init'], logsFile: files.init },
        { containers: ['web'], logsFile: files.web, previousLogsFile: files.webPrevious },
        { containers: ['sidecar'], logsFile: files.sidecar },
      ],
    });
    const pods = users.admin.coreV1.pods(namespace.name);
    await pods.create({
      metadata: { name: 'multi' },
      spec: {
        initContainers: [{ name: 'init', image: 'registry.invalid/init:1' }],
        containers: [
          { name: 'web', image: 'registry.invalid/web:1' },
          { name: 'sidecar', image: 'registry.invalid/sidecar:1' },
        ],
      },
    });
    await eventually(
      async () => expect((await pods.get('multi')).status?.phase).toBe('Running'),
      60_000,
    );
    const logs = users.tester.coreV1.pods(namespace.name);
    const every = await eventually(async () => {
      const lines = await allLines(logs.logLines('multi', { allContainers: true }));
      expect(lines).toHaveLength(5);
      return lines;
    });
    // The kubelet's timestamps, as it writes them (nanoseconds, fixed width).
    expect(every).toEqual([
      { container: 'init', timestamp: '2026-01-01T00:00:00.500000000Z', text: 'init done' },
      { container: 'web', timestamp: '2026-01-01T00:00:01.000000001Z', text: 'web one' },
      { container: 'web', timestamp: '2026-01-01T00:00:02.000000000Z', text: 'web two' },
      { container: 'web', timestamp: '2026-01-01T00:00:03.000000000Z', text: 'web three' },
      { container: 'sidecar', timestamp: '2026-01-01T00:00:04.000000000Z', text: 'sidecar one' },
    ]);
    expect(
      (await allLines(logs.logLines('multi', { container: 'web', tailLines: 1 }))).map(
        (line) => line.text,
      ),
    ).toEqual(['web three']);
    expect(
      (
        await allLines(
          logs.logLines('multi', { container: 'web', sinceTime: '2026-01-01T00:00:02Z' }),
        )
      ).map((line) => line.text),
    ).toEqual(['web two', 'web three']);
    expect(
      (await allLines(logs.logLines('multi', { container: 'web', previous: true }))).map(
        (line) => line.text,
      ),
    ).toEqual(['web before restart']);
    // A pod of several containers needs a container name (the server's 400).
    expect((await caught(allLines(logs.logLines('multi')))) as Error).toHaveProperty(
      'statusCode',
      400,
    );
  });

  it('follows a log and sees new lines; refused for alice', async () => {
    const file = join(scratch, 'follow.log');
    await writeFile(file, criLine(now(), 'before'));
    await kwokObject(namespace.name, 'Logs', 'follower', {
      logs: [{ containers: ['main'], logsFile: file, follow: true }],
    });
    await runningPod(users.admin, namespace.name, 'follower');
    const pods = users.tester.coreV1.pods(namespace.name);
    await eventually(async () => {
      expect((await allLines(pods.logLines('follower'))).map((line) => line.text)).toEqual([
        'before',
      ]);
    });
    const lines = pods
      .logLines('follower', { follow: true, sinceSeconds: 3600 })
      [Symbol.asyncIterator]();
    expect((await lines.next()).value).toMatchObject({ container: 'main', text: 'before' });
    const appending = setInterval(() => void appendFile(file, criLine(now(), 'later')), 200);
    try {
      expect((await lines.next()).value).toMatchObject({ text: 'later' });
    } finally {
      clearInterval(appending);
      await lines.return?.(undefined);
    }
    expect(
      isForbidden(
        await caught(allLines(users.alice.coreV1.pods(namespace.name).logLines('follower'))),
      ),
    ).toBe(true);
  });
});

describe('logLines and long lines', () => {
  it('cuts a 32 MiB line to maxLineBytes, says how much it cut, and decodes what the network split', async () => {
    const file = join(scratch, 'long.log');
    // Three-byte characters: the chunks kube-apiserver passes on split some of them.
    const huge = '€'.repeat(11_184_811); // 32 MiB and a byte
    const long = '€'.repeat(300_000); // 900,000 bytes, under the default 1 MiB
    await writeFile(
      file,
      criLine('2026-01-01T00:00:01Z', huge) +
        criLine('2026-01-01T00:00:02Z', long) +
        criLine('2026-01-01T00:00:03Z', 'short'),
    );
    await kwokObject(namespace.name, 'Logs', 'long', {
      logs: [{ containers: ['main'], logsFile: file }],
    });
    await runningPod(users.admin, namespace.name, 'long');
    const pods = users.tester.coreV1.pods(namespace.name);
    const lines = await eventually(async () => {
      const read = await allLines(pods.logLines('long'));
      expect(read).toHaveLength(3);
      return read;
    });
    const kept = Math.floor((1024 * 1024) / 3); // whole characters within 1 MiB
    expect(lines[0]?.text).toBe('€'.repeat(kept));
    expect(lines[0]?.truncatedBytes).toBe(Buffer.byteLength(huge) - kept * 3);
    expect(lines[1]?.text.indexOf('\ufffd')).toBe(-1);
    expect(lines[1]?.text === long).toBe(true);
    expect(lines[1]).not.toHaveProperty('truncatedBytes');
    expect(lines[2]).toEqual({
      container: 'main',
      timestamp: '2026-01-01T00:00:03.000000000Z',
      text: 'short',
    });
    // The bound is the caller's to choose.
    const small = await allLines(pods.logLines('long', { maxLineBytes: 10 }));
    expect(small.map((line) => [line.text, line.truncatedBytes])).toEqual([
      ['€€€', Buffer.byteLength(huge) - 9],
      ['€€€', Buffer.byteLength(long) - 9],
      ['short', undefined],
    ]);
  });
});

describe('logLines and the clientset closing', () => {
  it('ends a followed log of every container when the clientset closes, without reopening it', async () => {
    const files = { main: join(scratch, 'close-main.log'), side: join(scratch, 'close-side.log') };
    await writeFile(files.main, criLine(now(), 'main before'));
    await writeFile(files.side, criLine(now(), 'side before'));
    await kwokObject(namespace.name, 'Logs', 'closing', {
      logs: [
        { containers: ['main'], logsFile: files.main, follow: true },
        { containers: ['side'], logsFile: files.side, follow: true },
      ],
    });
    await runningPod(users.admin, namespace.name, 'closing', ['main', 'side']);
    const closing = await clientsetFor('tester');
    const pods = closing.coreV1.pods(namespace.name);
    await eventually(async () => {
      expect(await allLines(pods.logLines('closing', { allContainers: true }))).toHaveLength(2);
    });
    const logRequests = async (): Promise<number> =>
      (await readAuditLog(controlPlane().auditLogPath, { name: 'closing', user: 'tester' })).filter(
        (record) => record.subresource === 'log',
      ).length;
    const before = await logRequests();
    const lines = pods
      .logLines('closing', { allContainers: true, follow: true, reconnect: { delayMs: 50 } })
      [Symbol.asyncIterator]();
    const first = [(await lines.next()).value, (await lines.next()).value] as LogLine[];
    expect(first.map((line) => line.text).sort()).toEqual(['main before', 'side before']);
    const next = lines.next();
    await eventually(async () => expect(await logRequests()).toBe(before + 2));
    const closedAt = Date.now();
    await closing.close();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(Date.now() - closedAt).toBeLessThan(5_000);
    // The two followed logs, and no reopening after the close.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await logRequests()).toBe(before + 2);
  });
});

describe('logLines reconnect (own control plane: the fault proxy cuts connections)', () => {
  let plane: ControlPlane;
  let proxy: FaultProxy;
  let planeAdmin: Clientset;
  let throughProxy: Clientset;

  beforeAll(async () => {
    plane = await startControlPlane({ nodes: 1, controllerManager: false, scheduler: false });
    proxy = await plane.faultProxy();
    planeAdmin = await inferClientset({ kubeconfig: plane.kubeconfigPath, throttle: 'off' });
    // admin: without kube-controller-manager the aggregated `edit` role of tester is empty.
    throughProxy = await inferClientset({ kubeconfig: proxy.kubeconfigPath, throttle: 'off' });
  }, 180_000);

  afterAll(async () => {
    await Promise.all([planeAdmin?.close(), throughProxy?.close()]);
    await plane?.stop();
  });

  it('reopens a followed log cut by the network from the last timestamp, without repeating lines', async () => {
    const file = join(scratch, 'reconnect.log');
    // Two lines in the same second: sinceTime keeps whole seconds, so the reopened log repeats
    // them and the client must drop exactly those it gave.
    await writeFile(
      file,
      criLine('2026-01-01T00:00:01.1Z', 'one') +
        criLine('2026-01-01T00:00:01.2Z', 'two') +
        criLine('2026-01-01T00:00:01.2Z', 'two again, same timestamp'),
    );
    await kwokObject(
      'default',
      'Logs',
      'cut',
      {
        logs: [{ containers: ['main'], logsFile: file, follow: true }],
      },
      plane,
    );
    await runningPod(planeAdmin, 'default', 'cut', ['main'], plane.nodes[0]);
    const pods = throughProxy.coreV1.pods('default');
    await eventually(async () => {
      expect(await allLines(pods.logLines('cut'))).toHaveLength(3);
    });
    const logRequests = async (): Promise<number> =>
      new Set(
        (await readAuditLog(plane.auditLogPath, { name: 'cut' }))
          .filter((record) => record.subresource === 'log')
          .map((record) => record.auditID),
      ).size;
    const before = await logRequests();
    const lines = pods
      .logLines('cut', { follow: true, reconnect: { delayMs: 50 } })
      [Symbol.asyncIterator]();
    const seen: string[] = [];
    for (let index = 0; index < 3; index += 1)
      seen.push(((await lines.next()).value as LogLine).text);
    proxy.cut();
    await appendFile(file, criLine(now(), 'after the cut'));
    seen.push(((await lines.next()).value as LogLine).text);
    await lines.return?.(undefined);
    expect(seen).toEqual(['one', 'two', 'two again, same timestamp', 'after the cut']);
    // The follow, and its reopening after the cut.
    await eventually(async () => expect(await logRequests()).toBe(before + 2));
  });
});
