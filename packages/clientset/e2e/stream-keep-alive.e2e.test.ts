import { WebSocketError } from '@k/rest';
import { FaultProxy } from '@k/testenv';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { caught } from '@k/test-utils';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inferClientset, PortForwardError, type Clientset } from '../src/index.js';
import { eventually, useUserClientsets } from './helpers.js';
import {
  execPod as execPodIn,
  finish,
  kwokObject,
  readAll,
  runningPod,
} from './pod-streams-helpers.js';

// Dead-peer detection through the real API server. The fault proxy of tools/testenv sits between
// the client and the run's kube-apiserver and relays the TLS bytes; `stall()` freezes the open
// connections (nothing forwarded either way, no socket closed), as a peer that hangs or a network
// that drops packets without a reset does. Without a pong deadline such a session would wait
// forever; with one it fails with a typed error.
const namespace = useTestNamespace({ prefix: 'clientset-keepalive' });
const scratch = await mkdtemp(join(tmpdir(), 'clientset-keepalive-'));
const users = useUserClientsets();
let proxy: FaultProxy;
let throughProxy: Clientset;
const servers: Server[] = [];

beforeAll(async () => {
  proxy = await FaultProxy.inFrontOf(controlPlane(), join(scratch, 'kubeconfig-fault-proxy'));
  throughProxy = await inferClientset({
    kubeconfig: proxy.kubeconfigPath,
    context: 'tester',
    throttle: 'off',
  });
});

afterAll(async () => {
  await proxy?.heal();
  await throughProxy?.close();
  await proxy?.close();
  for (const server of servers) server.close();
  await rm(scratch, { recursive: true, force: true });
});

function execPod(name: string): Promise<void> {
  return execPodIn(users.admin, namespace.name, name, {
    workDir: scratch,
    readyFor: throughProxy,
  });
}

describe('keep-alive of pod streams (fault proxy in front of the real API server)', () => {
  it('keeps a quiet exec open while the server answers the pings', async () => {
    await execPod('quiet');
    const started = Date.now();
    const session = await throughProxy.coreV1.pods(namespace.name).exec('quiet', {
      command: ['sh', '-c', 'sleep 3; echo still here'],
      pingIntervalMs: 200,
      pongTimeoutMs: 1_000,
    });
    // 15 pings, each answered by kube-apiserver well within the deadline.
    expect(await finish(session)).toMatchObject({
      stdout: 'still here\n',
      result: { exitCode: 0 },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
  });

  it('fails an exec whose connection went silent with ERR_REST_WEBSOCKET_PONG_TIMEOUT', async () => {
    await execPod('stalled');
    const session = await throughProxy.coreV1.pods(namespace.name).exec('stalled', {
      command: ['sh', '-c', 'echo ready; sleep 60'],
      pingIntervalMs: 200,
      pongTimeoutMs: 1_000,
    });
    const stdout = readAll(session.stdout);
    let seen = '';
    session.stdout!.on('data', (chunk) => (seen += String(chunk)));
    await eventually(() => expect(seen).toBe('ready\n'), 10_000);
    await proxy.stall();
    const stalledAt = Date.now();
    try {
      const error = await caught(session.result);
      const waited = Date.now() - stalledAt;
      expect(error).toBeInstanceOf(WebSocketError);
      expect((error as WebSocketError).code).toBe('ERR_REST_WEBSOCKET_PONG_TIMEOUT');
      expect((error as WebSocketError).closeCode).toBe(1006);
      // The deadline of a ping sent up to one interval before the stall — not the minute of
      // `sleep 60`.
      expect(waited).toBeGreaterThanOrEqual(1_000 - 200);
      expect(waited).toBeLessThan(5_000);
      // The output ends cleanly; the failure is the result's.
      expect(await stdout).toBe('ready\n');
    } finally {
      await proxy.heal();
    }
  });

  it('destroys a port-forward stream whose connection went silent with a PortForwardError', async () => {
    // The pod's port 7000 leads to a TCP server of this test that accepts and stays silent.
    const silent = createServer(() => undefined);
    servers.push(silent);
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const target = (silent.address() as { port: number }).port;
    await kwokObject(namespace.name, 'PortForward', 'forward', {
      forwards: [{ ports: [7000], target: { port: target, address: '127.0.0.1' } }],
    });
    await runningPod(users.admin, namespace.name, 'forward');
    const pods = throughProxy.coreV1.pods(namespace.name);
    const options = { pingIntervalMs: 200, pongTimeoutMs: 1_000 };
    // kwok picks the object up within about a second: the first stream is retried until the
    // target accepted it.
    const stream = await eventually(async () => {
      const accepted = once(silent, 'connection');
      const candidate = await pods.portForwardStream('forward', 7000, options);
      candidate.on('error', () => undefined); // a refused attempt is retried
      const connected = await Promise.race([
        accepted.then(() => true),
        new Promise<boolean>((resolve) => candidate.once('close', () => resolve(false))),
      ]);
      expect(connected).toBe(true);
      return candidate;
    });
    const closed = new Promise((resolve) => stream.once('close', resolve));
    const errors: Error[] = [];
    stream.on('error', (error: Error) => errors.push(error));
    stream.resume();
    await proxy.stall();
    const stalledAt = Date.now();
    try {
      await closed;
      expect(Date.now() - stalledAt).toBeLessThan(5_000);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(PortForwardError);
      expect((errors[0]!.cause as WebSocketError).code).toBe('ERR_REST_WEBSOCKET_PONG_TIMEOUT');
    } finally {
      await proxy.heal();
    }
  });
});
