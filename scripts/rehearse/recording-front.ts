/**
 * A recording front for one local engine: every request the functions' SDK clients send is
 * described (aws-requests.ts), handed to `record`, and forwarded unchanged, Host header and
 * signature included, to the engine behind. This is how the rehearsal sees each call each
 * function makes without changing the product's code or its clients.
 *
 * `hold`, asked as each request arrives, may return a wait for the engine's answer to go
 * through before the caller gets it (cognito-local's mailed codes: rehearsal.ts).
 */
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeRequest, type AwsRequestFacts, type ResourceNames } from './aws-requests.js';

export interface RecordingFront {
  readonly endpoint: string;
  stop(): Promise<void>;
}

export async function startRecordingFront(
  service: Parameters<typeof describeRequest>[0],
  target: string,
  names: ResourceNames,
  record: (facts: AwsRequestFacts, status: number) => void,
  port = 0,
  hold?: (facts: AwsRequestFacts, body: Buffer) => ((status: number) => Promise<void>) | undefined,
): Promise<RecordingFront> {
  const behind = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let facts: AwsRequestFacts | undefined;
      try {
        facts = describeRequest(service, { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body }, names);
      } catch (error) {
        process.stderr.write(`rehearsal: cannot describe a ${service} request ${req.method} ${req.url}: ${(error as Error).message}\n`);
      }
      // Recorded as sent, whatever the engine answers and even if the caller gives up waiting
      // (a timed-out call was still made, and IAM would still have judged it).
      if (facts) record(facts, 0);
      const wait = facts && hold?.(facts, body);
      const upstream = forward(
        { host: behind.hostname, port: behind.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const relay = () => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          };
          if (wait) void wait(answer.statusCode ?? 502).then(relay);
          else relay();
        },
      );
      upstream.on('error', (error) => {
        if (!res.headersSent) res.writeHead(502);
        res.end(String(error));
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${bound}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
