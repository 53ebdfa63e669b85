import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionPools } from '../src/connection.js';
import { createTransport } from '../src/index.js';
import { resolvedContext, sendJson } from './support/cluster.js';

describe('connection reuse against the real API server', () => {
  let opened: Socket[] = [];
  const onConnected = (message: unknown) => {
    opened.push((message as { socket: Socket }).socket);
  };

  beforeEach(() => {
    opened = [];
    subscribe('undici:client:connected', onConnected);
  });

  afterEach(() => {
    unsubscribe('undici:client:connected', onConnected);
  });

  it('sends N sequential requests over one TLS connection', async () => {
    const transport = createTransport(await resolvedContext('admin'), {
      connectionPools: new ConnectionPools(),
    });
    for (let index = 0; index < 25; index += 1) {
      expect((await sendJson(transport, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
      // undici hands a socket back to its pool one event-loop turn after the response ended.
      await nextTurn();
    }
    expect(opened).toHaveLength(1);
    expect(opened[0]?.constructor.name).toBe('TLSSocket');
    await transport.close();
  });

  it('speaks HTTP/1.1 to an API server that prefers h2 (ADR 0012)', async () => {
    // kube-apiserver picks h2 when a client offers it; undici 8 offers it unless told not to.
    const transport = createTransport(await resolvedContext('admin'), {
      connectionPools: new ConnectionPools(),
    });
    expect((await sendJson(transport, 'GET', '/version')).status).toBe(200);
    expect(opened).toHaveLength(1);
    expect((opened[0] as TLSSocket).alpnProtocol).toBe('http/1.1');
    await transport.close();
  });

  it('shares connections between transports of one context, not across TLS identities', async () => {
    const pools = new ConnectionPools();
    const tester = await resolvedContext('tester');
    const first = createTransport(tester, { connectionPools: pools });
    const second = createTransport(tester, { connectionPools: pools, appName: 'other-client' });
    const admin = createTransport(await resolvedContext('admin'), { connectionPools: pools });
    for (const transport of [first, second, first, second]) {
      expect((await sendJson(transport, 'GET', '/version')).status).toBe(200);
      await nextTurn();
    }
    expect(opened).toHaveLength(1);
    expect((await sendJson(admin, 'GET', '/version')).status).toBe(200);
    expect(opened).toHaveLength(2);
    expect(pools.size).toBe(2);
    await first.close();
    expect(pools.size).toBe(2);
    await second.close();
    await admin.close();
    expect(pools.size).toBe(0);
  });
});
