import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { json, startRecordingServer, type RecordingServer } from './recording-server.js';

const fixtures = join(import.meta.dirname, 'discovery');

/** discoveryFixture reads one recorded discovery document of the pinned release. */
async function discoveryFixture(name: string): Promise<unknown> {
  return JSON.parse(await readFile(join(fixtures, `${name}.json`), 'utf8'));
}

/**
 * startDiscoveryServer starts a recording fake server answering the recorded discovery of the
 * pinned release: aggregated, or legacy (with one broken aggregated API, answered 503), plus
 * `/version`. It counts requests, so tests can see what caches save.
 */
export async function startDiscoveryServer(
  mode: 'aggregated' | 'legacy',
): Promise<RecordingServer> {
  const documents: Record<string, unknown> =
    mode === 'aggregated'
      ? {
          '/api': await discoveryFixture('aggregated-api'),
          '/apis': await discoveryFixture('aggregated-apis'),
        }
      : {
          '/api': await discoveryFixture('legacy-api'),
          '/apis': await discoveryFixture('legacy-apis'),
          '/api/v1': await discoveryFixture('legacy-api-v1'),
          '/apis/apps/v1': await discoveryFixture('legacy-apis-apps-v1'),
        };
  return startRecordingServer((request, response) => {
    const document = documents[request.url];
    if (request.url === '/version')
      return json(response, 200, { major: '1', minor: '37', gitVersion: 'v1.37.2' });
    if (document === undefined) {
      return json(response, 503, {
        kind: 'Status',
        status: 'Failure',
        code: 503,
        reason: 'ServiceUnavailable',
      });
    }
    json(
      response,
      200,
      document,
      mode === 'aggregated'
        ? 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
        : 'application/json',
    );
  });
}
