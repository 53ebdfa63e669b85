import type { Server, ServerResponse } from 'node:http';
import { RestClient, RetryPolicy } from '@k/rest';
import { TokenBucket } from '@k/rest/throttle';
import { NO_WARNINGS } from '@k/rest/warnings';
import { respondJson, startTestServer, type TestServerArrival } from '@k/test-utils';
import { apiServerDispatcher } from '@k/transport';
import { Agent } from 'undici';

/** Responder answers a recorded request; the default answers 200 `{}`. */
export type Responder = (request: TestServerArrival, response: ServerResponse) => void;

/**
 * RecordingServer is @k/test-utils' recording server with a client for it: the unit tests check
 * the HTTP mapping of the clients against it (method, path, query, headers, body); behaviour is
 * tested against the real API server in e2e/.
 */
export interface RecordingServer {
  url: string;
  /** server is the node:http server, e.g. to hold WebSocket upgrades unanswered. */
  server: Server;
  requests: TestServerArrival[];
  /** client is a RestClient for the server: no throttle, no retries, no warnings logged. */
  client: RestClient;
  close(): Promise<void>;
}

/** json answers with a JSON body. */
export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json',
): void {
  respondJson(response, status, body, { 'content-type': contentType });
}

/** startRecordingServer starts a {@link RecordingServer} answering with `respond`. */
export async function startRecordingServer(
  respond: Responder = (_request, response) => json(response, 200, {}),
): Promise<RecordingServer> {
  const server = await startTestServer((_request, response, arrival) => respond(arrival, response));
  const dispatcher = new Agent();
  const client = new RestClient(apiServerDispatcher(dispatcher, server.url), {
    throttle: TokenBucket.unlimited(),
    retry: new RetryPolicy({ maxRetries: 0 }),
    warningHandler: NO_WARNINGS,
  });
  return {
    url: server.url,
    server: server.server,
    requests: server.arrivals,
    client,
    async close() {
      await dispatcher.close();
      await server.close();
    },
  };
}
