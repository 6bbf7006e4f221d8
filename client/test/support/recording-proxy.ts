/**
 * An HTTP listener on a port of its own that records the Authorization header of every request
 * it receives, then forwards the request to a real service (or answers with a redirect). Two of
 * them in front of one test stack are two services as far as the CLI can tell: a token's
 * origin is scheme, host and port, and each listener has its own port.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface RecordingProxy {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Every request received, in order, forwarded or not. */
  requests: ReceivedRequest[];
  /** The Authorization headers received (undefined for a request without one). */
  authorizations(): (string | undefined)[];
  /** From now on, answer every request with `status` and `Location: <base><path>` instead of forwarding it; `undefined` forwards again. */
  redirectTo(base: string | undefined, status?: number): void;
  close(): Promise<void>;
}

export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const requests: ReceivedRequest[] = [];
  let redirect: { base: string; status: number } | undefined;
  const upstream = new URL(target);
  const server = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization });
    if (redirect) {
      const { base, status } = redirect;
      req.resume();
      req.on('end', () => {
        res.writeHead(status, { location: `${base}${path}`, 'content-length': '0' });
        res.end();
      });
      return;
    }
    const forwarded = request(new URL(path, upstream), { method: req.method, headers: { ...req.headers, host: upstream.host }, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', (error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(error.message);
    });
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    authorizations: () => requests.map((received) => received.authorization),
    redirectTo(base, status = 307) {
      redirect = base === undefined ? undefined : { base, status };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
