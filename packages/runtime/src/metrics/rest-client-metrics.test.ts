import { createServer } from 'node:net';
import { parseKubeconfig, resolveConfig } from '@k/config';
import { ConnectionError, createRestClient, type ThrottleEvent } from '@k/rest';
import { FakeClock } from '@k/rest/testing';
import { TokenBucket } from '@k/rest/throttle';
import { caught } from '@k/test-utils';
import { describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../logger.js';
import { PrometheusMetrics } from '../prometheus.js';
import { restClientInstrumentation } from './rest-client-metrics.js';

/** closedPort is a loopback port nothing listens on: a request to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function recordingLogger(): Logger & { lines: [string, string, LogFields | undefined][] } {
  const lines: [string, string, LogFields | undefined][] = [];
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push([level, message, fields]);
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const event = (waitedMs: number): ThrottleEvent => ({
  request: { method: 'GET', path: '/api/v1/namespaces/default/configmaps' },
  host: '127.0.0.1:6443',
  waitedMs,
});

describe('restClientInstrumentation', () => {
  it("records the second request's wait in a 1 qps, burst 1 throttle, and every request", async () => {
    const port = await closedPort();
    const config = resolveConfig(
      parseKubeconfig(`apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'http://127.0.0.1:${port}' } }]
users: [{ name: u, user: {} }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`).config,
    );
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const clock = new FakeClock();
    const instrumentation = restClientInstrumentation({ metrics });
    const seen: ThrottleEvent[] = [];
    const client = createRestClient(config, {
      ...instrumentation,
      onThrottle: (throttled) => {
        seen.push(throttled);
        instrumentation.onThrottle(throttled);
      },
      throttle: new TokenBucket({ qps: 1, burst: 1, clock }),
      clock,
    });
    try {
      // No server is needed: the token is taken before the connection is tried (and refused).
      const get = () => client.get().namespace('default').resource('configmaps').execute();
      expect(await caught(get())).toBeInstanceOf(ConnectionError);
      const second = caught(get());
      await clock.advance(999);
      expect(seen).toHaveLength(1); // still waiting for its token
      await clock.advance(1);
      expect(await second).toBeInstanceOf(ConnectionError);
    } finally {
      await client.close();
    }
    const host = `127.0.0.1:${port}`;
    expect(seen.map(({ waitedMs }) => waitedMs)).toEqual([0, 1000]);
    expect(seen[1]).toEqual({
      request: { method: 'GET', path: '/api/v1/namespaces/default/configmaps' },
      host,
      waitedMs: 1000,
    });
    const { body } = await metrics.scrape();
    const series = `{verb="GET",host="${host}"}`;
    expect(body).toContain('# TYPE rest_client_rate_limiter_duration_seconds histogram');
    expect(body).toContain(`rest_client_rate_limiter_duration_seconds_count${series} 2`);
    expect(body).toContain(`rest_client_rate_limiter_duration_seconds_sum${series} 1`);
    // client-go's buckets: the first request in the lowest, the second from le="1" up.
    const bucket = (le: string) =>
      `rest_client_rate_limiter_duration_seconds_bucket{le="${le}",verb="GET",host="${host}"}`;
    expect(body).toContain(`${bucket('0.005')} 1`);
    expect(body).toContain(`${bucket('0.5')} 1`);
    expect(body).toContain(`${bucket('1')} 2`);
    expect(body).toContain(`${bucket('60')} 2`);
    // The request metrics of the same spread: both attempts went on the wire, unanswered.
    expect(body).toContain(
      `rest_client_requests_total{code="<error>",method="GET",host="${host}"} 2`,
    );
  });

  it("logs a wait over 50 ms at debug, over 1 s at info at most every 10 s (client-go's)", async () => {
    const logger = recordingLogger();
    const clock = new FakeClock();
    const { onThrottle, transport } = restClientInstrumentation({ logger, clock });
    expect(transport.interceptors).toEqual([]); // no metrics sink, no interceptor
    onThrottle(event(0));
    onThrottle(event(50));
    expect(logger.lines).toEqual([]);
    onThrottle(event(51));
    onThrottle(event(1500));
    await clock.advance(9_999);
    onThrottle(event(2000)); // another info line this soon would spam
    await clock.advance(1);
    onThrottle(event(1001));
    expect(logger.lines.map(([level, , fields]) => [level, fields?.waitedMs])).toEqual([
      ['debug', 51],
      ['info', 1500],
      ['debug', 2000],
      ['info', 1001],
    ]);
    expect(logger.lines[1]).toEqual([
      'info',
      'waited before sending request',
      {
        waitedMs: 1500,
        reason: 'client-side throttling, not priority and fairness',
        verb: 'GET',
        host: '127.0.0.1:6443',
        path: '/api/v1/namespaces/default/configmaps',
      },
    ]);
  });

  it('records nothing without a sink and logs nothing without a logger', () => {
    const { onThrottle, transport } = restClientInstrumentation();
    expect(transport.interceptors).toEqual([]);
    expect(() => onThrottle(event(5000))).not.toThrow();
  });
});
