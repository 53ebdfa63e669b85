import { request as httpsRequest } from 'node:https';
import { caught, eventually } from '@k/test-utils';
import { describe, expect, it } from 'vitest';
import { SILENT_LOGGER, type Logger } from '../logger.js';
import { PrometheusMetrics } from '../prometheus.js';
import type { WebhookServerAddress } from '../webhook/webhook-server.js';
import { Manager } from './manager.js';
import type { ServerAddress } from './manager-server.js';

// A Manager's webhook server: made once, run without leader election, ready only while it
// listens, and drained with the Manager after /readyz fails.

const selfSigned = { selfSigned: { hosts: ['127.0.0.1'] } };

function post(url: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpsRequest(
      `${url}${path}`,
      { method: 'POST', rejectUnauthorized: false, agent: false },
      (response) => {
        response.resume();
        resolve(response.statusCode!);
      },
    )
      .on('error', reject)
      .end('{}');
  });
}

describe('Manager.webhookServer', () => {
  it('makes one webhook server, before the manager starts', async () => {
    const manager = new Manager({ probes: false, metricsServer: false, logger: SILENT_LOGGER });
    const server = manager.webhookServer({ certificate: selfSigned });
    expect(server.needLeaderElection).toBe(false);
    expect(await caught(() => manager.webhookServer({ certificate: selfSigned }))).toMatchObject({
      code: 'ERR_RUNTIME_CONFIGURATION',
    });
    const late = new Manager({ probes: false, metricsServer: false, logger: SILENT_LOGGER });
    const stop = new AbortController();
    const done = late.start(stop.signal);
    expect(await caught(() => late.webhookServer({ certificate: selfSigned }))).toMatchObject({
      code: 'ERR_RUNTIME_CONFIGURATION',
    });
    stop.abort();
    await done;
  });

  it('serves with the manager, reports its address, is ready while listening, and drains after /readyz fails', async () => {
    const lines: string[] = [];
    const logger: Logger = { ...SILENT_LOGGER, info: (message) => lines.push(message) };
    const heard: (ServerAddress | WebhookServerAddress)[] = [];
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const manager = new Manager({
      probes: { port: 0, host: '127.0.0.1' },
      metricsServer: false,
      logger,
      metrics,
      onListening: (address) => heard.push(address),
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = false;
    const own: WebhookServerAddress[] = [];
    manager
      .webhookServer({
        host: '127.0.0.1',
        port: 0,
        certificate: selfSigned,
        onListening: (address) => own.push(address),
      })
      .handle('/hold', async () => {
        entered = true;
        await gate;
        return { status: 200, body: { ok: true } };
      });
    const stop = new AbortController();
    const done = manager.start(stop.signal);
    const webhook = await eventually(
      () => manager.addresses.webhook ?? Promise.reject(new Error('not yet')),
      10_000,
      10,
    );
    expect(webhook.url).toBe(`https://127.0.0.1:${webhook.port}`);
    expect(heard.map((address) => address.serves).sort()).toEqual(['probes', 'webhook']);
    expect(own).toEqual([webhook]);
    expect(lines).toContain('serving webhooks'); // the manager's logger
    const probes = manager.addresses.probes!.url;
    expect((await fetch(`${probes}/readyz/webhook`)).status).toBe(200);

    const call = post(webhook.url, '/hold');
    await eventually(() => expect(entered).toBe(true), 10_000, 10);
    stop.abort();
    // Draining: the call is still in flight, and readiness already fails.
    expect((await fetch(`${probes}/readyz/webhook`)).status).toBe(500);
    expect(await fetch(`${probes}/readyz`).then((response) => response.status)).toBe(500);
    release();
    expect(await call).toBe(200);
    await done;
    expect(manager.addresses.webhook).toBeUndefined();
    expect((await metrics.scrape()).body).toContain(
      'controller_runtime_webhook_requests_total{webhook="/hold",code="200"} 1',
    );
  });

  it('fails the manager when the certificate cannot be loaded', async () => {
    const manager = new Manager({ probes: false, metricsServer: false, logger: SILENT_LOGGER });
    manager.webhookServer({ certificate: { certDir: '/nonexistent/k-webhook-certs' }, port: 0 });
    const error = await caught(manager.start(new AbortController().signal));
    expect(error).toMatchObject({ code: 'ERR_RUNTIME_WEBHOOK_CERTIFICATE' });
  });
});
