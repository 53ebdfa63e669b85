import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RestClient, RetryPolicy, TokenBucket, NO_WARNINGS } from '@k/rest';
import { apiServerDispatcher } from '@k/transport';
import { Agent } from 'undici';

/** RecordedRequest is one request as the fake server received it. */
interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Responder answers a recorded request; the default answers 200 `{}`. */
export type Responder = (request: RecordedRequest, response: ServerResponse) => void;

/**
 * RecordingServer is a local node:http server on port 0 that records every request: the unit
 * tests check the HTTP mapping of the clients against it (method, path, query, headers, body);
 * behaviour is tested against the real API server in e2e/.
 */
export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
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
  response.writeHead(status, { 'content-type': contentType });
  response.end(JSON.stringify(body));
}

/** startRecordingServer starts a {@link RecordingServer} answering with `respond`. */
export async function startRecordingServer(
  respond: Responder = (_request, response) => json(response, 200, {}),
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      respond(recorded, response);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dispatcher = new Agent();
  const client = new RestClient(apiServerDispatcher(dispatcher, url), {
    throttle: TokenBucket.unlimited(),
    retry: new RetryPolicy({ maxRetries: 0 }),
    warningHandler: NO_WARNINGS,
  });
  return {
    url,
    requests,
    client,
    async close() {
      await dispatcher.close();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
