/**
 * The fake API server of bench/clientset-import.bench.ts's LIST workload, run in its own process
 * (child_process.fork) so it never shares the clients' event loop: plain HTTP on loopback,
 *
 *   GET /api/v1/namespaces/default/pods   a PodList of BENCH_LIST_PODS pods (default 5,000)
 *   GET /version                          a small JSON object (to open the connection)
 *
 * built once at start-up from bench/rest-server.ts's realistic `pod()`. It sends `{ port }` to its
 * parent when listening and exits on 'exit' or disconnect.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pod } from './rest-server.js';

const count = Number(process.env.BENCH_LIST_PODS ?? 5000);
const list = Buffer.from(
  JSON.stringify({
    kind: 'PodList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '99999' },
    items: Array.from({ length: count }, (_, index) => pod(index)),
  }),
);

const server = createServer({ keepAliveTimeout: 90_000 }, (request, response) => {
  request.resume();
  if (request.url?.startsWith('/api/v1/namespaces/default/pods')) {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': list.length });
    response.end(list);
    return;
  }
  if (request.url === '/version') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"major":"1","minor":"37","gitVersion":"v1.37.2"}');
    return;
  }
  response.writeHead(404, { 'content-type': 'application/json' });
  response.end('{"kind":"Status","status":"Failure","code":404,"reason":"NotFound"}');
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port, bytes: list.length });
});
process.on('message', (message) => {
  if (message === 'exit') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
