import { createServer } from 'node:net';

/**
 * freePort asks the kernel for a currently unused TCP port on 127.0.0.1 (bind to port 0, read it,
 * close). Another process can take the port before the caller binds it; callers retry on
 * "address already in use".
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not read the bound port'));
      });
    });
  });
}

/** freePorts returns `count` distinct free ports (see {@link freePort}). */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** isPortFree is true when 127.0.0.1:`port` can be bound right now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () =>
      server.close(() => resolve(true)),
    );
  });
}
