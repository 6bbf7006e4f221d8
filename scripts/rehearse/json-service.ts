/**
 * The front shared by the KMS and SQS stand-ins: both speak AWS's JSON protocol (a POST whose
 * `X-Amz-Target` header names `<Service>.<Operation>`, a JSON body, JSON answers and errors
 * as `{"__type": ..., "message": ...}` with a 400). Rehearsal infrastructure only: the product
 * talks to the real services through the unchanged SDK clients.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

type Operations = Record<string, (input: Record<string, unknown>) => unknown>;

export interface JsonService {
  readonly endpoint: string;
  stop(): Promise<void>;
}

export async function startJsonService(name: string, contentType: string, operations: Operations): Promise<JsonService> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.slice(target.indexOf('.') + 1);
      let status = 200;
      let body: unknown;
      try {
        const run = operations[operation];
        if (!run) throw new ServiceError('UnknownOperationException', `${name} stand-in does not implement ${operation || '(no X-Amz-Target)'}`);
        const text = Buffer.concat(chunks).toString('utf8');
        body = run(text ? (JSON.parse(text) as Record<string, unknown>) : {});
      } catch (error) {
        const known = error instanceof ServiceError ? error : new ServiceError('InternalFailure', (error as Error).message, 500);
        status = known.status;
        body = { __type: known.type, message: known.message };
      }
      const bytes = Buffer.from(JSON.stringify(body ?? {}));
      res.writeHead(status, { 'content-type': contentType, 'content-length': bytes.length, 'x-amzn-requestid': crypto.randomUUID() });
      res.end(bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
