/**
 * Whether the HTTP port is free, asked before anything starts: DynamoDB Local's JVM and s3rver
 * take seconds to boot, and a busy port found only after them made `npm start` take 15 s to
 * say so. The server still handles EADDRINUSE itself (serve.ts) for a port taken in between.
 */
import { createServer } from 'node:net';

class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`port ${port} is already in use; set PORT to another port (0 for any)`);
    this.name = 'PortInUseError';
  }
}

/** Resolves once `port` on `host` could be bound (and is let go again); PortInUseError when it is taken. */
export function assertPortFree(port: number, host = '127.0.0.1'): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
