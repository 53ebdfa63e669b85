import { caught } from '@k/test-utils';
import { isForbidden } from '@k/rest';
import { useTestNamespace } from '@k/testenv/vitest';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { PortForwardError, type PortForwardStream } from '../src/index.js';
import { eventually, useUserClientsets } from './helpers.js';
import { kwokObject, runningPod } from './pod-streams-helpers.js';

// port-forward over WebSockets: client → kube-apiserver (which proxies the v4 channel protocol
// as it is) → kwok's kubelet API, which dials the PortForward object's target: here an HTTP
// server of this test on 127.0.0.1.
const namespace = useTestNamespace({ prefix: 'clientset-forward' });
const users = useUserClientsets();
const servers: Server[] = [];

async function httpServer(name: string): Promise<number> {
  const server = createServer((request, response) => {
    if (request.url === '/big') {
      response.end(Buffer.alloc(4 * 1024 * 1024, 'b'));
      return;
    }
    response.end(`${name} answers ${request.url}`);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

afterAll(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

/** forwardingPod makes pod `name` whose ports 8080 and 9090 lead to two local HTTP servers. */
async function forwardingPod(name: string): Promise<void> {
  const [web, api] = [await httpServer('web'), await httpServer('api')];
  await kwokObject(namespace.name, 'PortForward', name, {
    forwards: [
      { ports: [8080], target: { port: web, address: '127.0.0.1' } },
      { ports: [9090], target: { port: api, address: '127.0.0.1' } },
    ],
  });
  await runningPod(users.admin, namespace.name, name);
}

async function request(stream: PortForwardStream, path: string): Promise<string> {
  stream.write(`GET ${path} HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n`);
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    if (/\r\n\r\n[\s\S]*answers/.test(text)) break;
  }
  stream.destroy();
  return text;
}

describe('port-forward', () => {
  it('forwards local listeners on several ports to the pod, like kubectl port-forward', async () => {
    await forwardingPod('web');
    const pods = users.tester.coreV1.pods(namespace.name);
    // kwok picks the object up within about a second: retry until a request goes through.
    await eventually(async () => {
      expect(await request(await pods.portForwardStream('web', 8080), '/probe')).toContain(
        'web answers /probe',
      );
    });
    const errors: Error[] = [];
    const forwarder = await pods.portForward(
      'web',
      [{ remote: 8080 }, { local: 0, remote: 9090 }],
      {
        onError: (error) => errors.push(error),
      },
    );
    try {
      expect(forwarder.address).toBe('127.0.0.1');
      expect(forwarder.ports.map((port) => port.remote)).toEqual([8080, 9090]);
      const [web, api] = forwarder.ports.map((port) => `http://127.0.0.1:${port.local}`);
      // Several requests and connections per port, each connection its own WebSocket.
      const answers = await Promise.all([
        fetch(`${web}/one`).then((response) => response.text()),
        fetch(`${api}/two`).then((response) => response.text()),
        fetch(`${web}/three`, { headers: { connection: 'close' } }).then((response) =>
          response.text(),
        ),
        fetch(`${api}/four`).then((response) => response.text()),
      ]);
      expect(answers).toEqual([
        'web answers /one',
        'api answers /two',
        'web answers /three',
        'api answers /four',
      ]);
      const big = await fetch(`${web}/big`);
      expect((await big.arrayBuffer()).byteLength).toBe(4 * 1024 * 1024);
      expect(errors).toEqual([]);
    } finally {
      await forwarder.close();
    }
  });

  it('stops listening when its signal aborts', async () => {
    await forwardingPod('aborted');
    const pods = users.tester.coreV1.pods(namespace.name);
    await eventually(async () => {
      expect(await request(await pods.portForwardStream('aborted', 8080), '/probe')).toContain(
        'web answers',
      );
    });
    const controller = new AbortController();
    const forwarder = await pods.portForward('aborted', [{ local: 0, remote: 8080 }], {
      signal: controller.signal,
    });
    const url = `http://127.0.0.1:${forwarder.ports[0]!.local}/before`;
    expect(await (await fetch(url)).text()).toBe('web answers /before');
    controller.abort();
    await eventually(async () => {
      expect(await caught(fetch(url, { headers: { connection: 'close' } }))).toBeInstanceOf(
        TypeError,
      );
    }, 5_000);
  });

  it('surfaces the error stream as a PortForwardError naming the port', async () => {
    await forwardingPod('nothing-on-7070');
    const pods = users.tester.coreV1.pods(namespace.name);
    const error = await eventually(async () => {
      const stream = await pods.portForwardStream('nothing-on-7070', 7070);
      stream.resume();
      const failure = await caught(once(stream, 'end'));
      expect(failure).toBeInstanceOf(PortForwardError);
      return failure as PortForwardError;
    });
    expect(error.code).toBe('ERR_CLIENTSET_PORT_FORWARD');
    expect(error.port).toBe(7070);
    expect(error.message).toContain('forward not found for port 7070');
  });

  it('is refused for alice with a typed 403, before anything listens', async () => {
    await forwardingPod('guarded');
    const pods = users.alice.coreV1.pods(namespace.name);
    expect(isForbidden(await caught(pods.portForwardStream('guarded', 8080)))).toBe(true);
    expect(isForbidden(await caught(pods.portForward('guarded', [{ remote: 8080 }])))).toBe(true);
  });
});
