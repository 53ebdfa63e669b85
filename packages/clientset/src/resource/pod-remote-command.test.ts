import { RequestTimeoutError } from '@k/rest';
import { caught } from '@k/test-utils';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientsetError } from '../errors.js';
import { createCoreV1Client } from '../generated/core/v1/index.js';
import { startRecordingServer, type RecordingServer } from '../__fixtures__/recording-server.js';

let server: RecordingServer | undefined;
const held: Socket[] = [];

afterEach(async () => {
  for (const socket of held.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

/** Plain is any value as plain JavaScript passes it: the types do not apply. */
type Plain = never;

// A fake server that takes the upgrade and never answers: a hung handshake the real API server
// does not produce on demand.
describe('exec and attach options (recording fake server)', () => {
  it('timeoutMs bounds the handshake', async () => {
    server = await startRecordingServer();
    server.server.on('upgrade', (_request, socket: Socket) => held.push(socket));
    const pods = createCoreV1Client(server.client).pods('ns');
    const started = Date.now();
    const error = await caught(pods.exec('p', { command: ['true'], timeoutMs: 100 }));
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(held).toHaveLength(1);
    const attach = await caught(pods.attach('p', { timeoutMs: 100 }));
    expect(attach).toBeInstanceOf(RequestTimeoutError);
  });

  it('refuses keep-alive settings that are not durations, before sending', async () => {
    server = await startRecordingServer();
    const pods = createCoreV1Client(server.client).pods('ns');
    const error = await caught(pods.exec('p', { command: ['true'], pongTimeoutMs: '5' as Plain }));
    expect(error).toBeInstanceOf(ClientsetError);
    expect((error as Error).message).toBe(
      'pods exec: options.pongTimeoutMs must be a number of 0 or more, got a string',
    );
    const copied = await caught(pods.copyFromPod('p', '/data', '/tmp/x', { maxListedEntries: -1 }));
    expect((copied as Error).message).toMatch(
      /options.maxListedEntries must be an integer of 0 or more, got a number$/,
    );
    const forward = await caught(pods.portForwardStream('p', 80, { pingIntervalMs: -1 }));
    expect((forward as Error).message).toBe(
      'pods port-forward: options.pingIntervalMs must be a number of 0 or more, got a number',
    );
    expect(server.requests).toHaveLength(0);
  });
});
