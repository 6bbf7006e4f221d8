/**
 * A recording front for one local engine: every request the functions' SDK clients send is
 * described (aws-requests.ts), handed to `record`, and forwarded unchanged, Host header and
 * signature included, to the engine behind. This is how the rehearsal sees each call each
 * function makes without changing the product's code or its clients.
 *
 * `hold`, asked as each request arrives, may return a wait for the engine's answer to go
 * through before the caller gets it (cognito-local's mailed codes: rehearsal.ts). `rewrite`
 * may send a call the engine lacks on as one it has, and translate the answer
 * (s3-versions-standin.ts); the call is recorded as the caller made it.
 */
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeRequest, type AwsRequestFacts, type ResourceNames } from './aws-requests.js';
import type { Rewrite } from './s3-versions-standin.js';

interface RecordingFront {
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
  rewrite?: (facts: AwsRequestFacts, path: string) => Rewrite | undefined,
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
      const rewritten = facts && rewrite?.(facts, req.url ?? '/');
      const upstream = forward(
        { host: behind.hostname, port: behind.port, method: req.method, path: rewritten ? rewritten.path : req.url, headers: req.headers },
        (answer) => {
          const relay = () => {
            if (!rewritten) {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              answer.pipe(res);
              return;
            }
            const parts: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => parts.push(chunk));
            answer.on('end', () => {
              const translated = rewritten.translate(Buffer.concat(parts));
              const { 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = answer.headers;
              res.writeHead(answer.statusCode ?? 502, { ...headers, 'content-length': String(translated.length) });
              res.end(translated);
            });
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
