/**
 * JSON requests over node:http with a keep-alive agent: the transport the AWS SDK's Node
 * handler uses, so a bench that compares an API call with a raw table call times both over
 * the same kind of client. The tests' client (test/support/http-client.ts) uses fetch, whose
 * handling of the answer runs in the bench's own process too, beside the stack; the audit
 * bench prints its first page over both.
 */
import { Agent, request } from 'node:http';

interface BenchHttp {
  post(path: string, body: unknown): Promise<{ status: number; body: unknown }>;
  close(): void;
}

export function benchHttp(baseUrl: string, token: string): BenchHttp {
  const agent = new Agent({ keepAlive: true });
  return {
    post: (path, body) =>
      new Promise((resolve, reject) => {
        const req = request(new URL(path, baseUrl), { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(body));
      }),
    close: () => agent.destroy(),
  };
}
