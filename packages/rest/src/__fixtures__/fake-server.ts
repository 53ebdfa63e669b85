import { apiServerDispatcher } from '@k/transport';
import { Agent } from 'undici';
import { RestClient } from '../client/rest-client.js';
import type { RestClientOptions } from '../client/rest-client-options.js';
import { NO_WARNINGS } from '../response/warning-handler.js';
import { RetryPolicy, type RetryPolicyOptions } from '../retry/retry-policy.js';
import { TokenBucket, type RateLimiter } from '../throttle/token-bucket.js';

// The fake API server is @k/test-utils' recording server; it exists for faults a real API server
// cannot be made to produce on demand (429 storms, resets mid-body, headers that never come,
// truncated bodies) — everything else is tested against the real one.
export {
  respondJson as json,
  startTestServer as startFakeServer,
  type TestServer as FakeServer,
} from '@k/test-utils';

/** TestClient is a RestClient on a fresh undici Agent, closed by `close()`. */
export interface TestClient {
  client: RestClient;
  agent: Agent;
  close(): Promise<void>;
}

export function testClient(
  url: string,
  options: {
    throttle?: RateLimiter;
    retry?: RetryPolicyOptions;
    client?: RestClientOptions;
    agent?: Agent.Options;
  } = {},
): TestClient {
  const agent = new Agent(options.agent);
  const client = new RestClient(apiServerDispatcher(agent, url), {
    throttle: options.throttle ?? TokenBucket.unlimited(),
    retry: new RetryPolicy({ initialBackoffMs: 1, maxBackoffMs: 5, ...options.retry }),
    warningHandler: NO_WARNINGS,
    ...options.client,
  });
  return { client, agent, close: () => agent.close() };
}
