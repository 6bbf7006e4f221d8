/**
 * A local webhook endpoint for tests: records every delivery (path, headers, raw body) and
 * answers as the test says (a status, a redirect, a huge body, or never). Plus the
 * receiver-side signature check of docs/API.md §6.2, written from docs/WEBHOOKS.md's recipe, not from
 * the service's code, so a signing bug cannot hide behind a shared helper.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.timeOrigin + now, ms, when the request's body was complete. */
  at: number;
}

/** How to answer: a status (and optional body/headers), or 'hang' (accept, never answer). */
export type Answer = { status: number; body?: string | Buffer; headers?: Record<string, string> } | 'hang';

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  received: ReceivedDelivery[];
  answer: (respond: (delivery: ReceivedDelivery) => Answer) => void;
  /** Resolves once `predicate` holds for the received list; rejects after `timeoutMs`. */
  waitFor(predicate: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(respond: (delivery: ReceivedDelivery) => Answer = () => ({ status: 204 })): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const sockets = new Set<Socket>();
  let responder = respond;
  let waiters: { check: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delivery = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.timeOrigin + performance.now() };
      received.push(delivery);
      for (const waiter of waiters) waiter.check();
      send(res, responder(delivery));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    answer: (next) => {
      responder = next;
    },
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          check: () => {
            if (!predicate(received)) return;
            clearTimeout(timer);
            waiters = waiters.filter((w) => w !== waiter);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          reject(new Error(`webhook receiver: condition not met after ${timeoutMs} ms (${received.length} received)`));
        }, timeoutMs);
        waiters.push(waiter);
        waiter.check();
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, answer: Answer): void {
  if (answer === 'hang') return;
  res.writeHead(answer.status, answer.headers ?? {});
  res.end(answer.body ?? '');
}

/** docs/API.md §6.2, as a receiver checks it: HMAC-SHA256(secret, `<timestamp>.<raw body>`), compared in constant time. */
export function signatureValid(secret: string, delivery: Pick<ReceivedDelivery, 'headers' | 'body'>): boolean {
  const timestamp = delivery.headers['x-service-webhook-timestamp'];
  const signature = delivery.headers['x-service-signature'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string' || !/^\d+$/.test(timestamp)) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${delivery.body}`).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
