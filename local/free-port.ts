/** Finds a free TCP port on loopback, for child services that cannot be told to pick one. */
import { createServer } from 'node:net';

/**
 * Listens on port 0 and releases the port the OS chose. Another process could take it in
 * between; callers that can retry (DynamoDB Local) do so on "address in use".
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not determine a free port'))));
    });
  });
}
