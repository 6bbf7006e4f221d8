/**
 * The WebhookTransport port over node:http(s), under the egress policy (egress-policy.ts,
 * docs/WEBHOOKS.md).
 *
 * DNS rebinding: a name is resolved once per attempt, every address it resolves to is
 * checked, and the connection goes to a checked address through a `lookup` that returns
 * only that address; the URL's host still names the Host header and the TLS SNI (and the
 * certificate is checked against it), so a name that resolves to a public address when
 * checked and to an internal one a moment later never reaches the internal one. An IP
 * literal is connected to as it is (Node does not call `lookup` for one) after its check.
 *
 * No redirect is followed (node:http never follows one; a 3xx is an answer like any other
 * non-2xx). Each attempt has one deadline (connect, TLS, response and reading the body) and
 * reads at most `maxResponseBytes` of the body, then closes the connection. A new
 * connection per attempt: pooled connections would be keyed by host name, not by the
 * address that was checked.
 */
import { lookup as systemLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { EgressVerdict, WebhookOutcome, WebhookRequest, WebhookTransport } from '../../domain/ports.js';
import { addressRefusal, parseEndpoint, type EgressRules, type EndpointTarget } from './egress-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (A and AAAA). Injected in tests. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo), every address in the order it returns them. */
export const systemResolve: Resolve = async (hostname) =>
  (await systemLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

interface HttpsTransportOptions extends EgressRules {
  resolve: Resolve;
  /** Deadline of one attempt, connect to last byte read; docs/WEBHOOKS.md, Egress policy: 10 s. */
  timeoutMs?: number;
  /** Most response bytes read; docs/WEBHOOKS.md, Egress policy: 64 KiB. */
  maxResponseBytes?: number;
  /** Most response bytes kept for the delivery log. */
  excerptBytes?: number;
  /** Extra trusted CA certificates (PEM), for tests with a local TLS receiver. */
  ca?: string;
  userAgent?: string;
}

const WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;
const EXCERPT_BYTES = 1024;

class Refusal extends Error {}

export class HttpsTransport implements WebhookTransport {
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly excerptBytes: number;

  constructor(private readonly options: HttpsTransportOptions) {
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.excerptBytes = options.excerptBytes ?? EXCERPT_BYTES;
  }

  async check(raw: string): Promise<EgressVerdict> {
    try {
      const target = this.target(raw);
      await this.checkedAddress(target);
      return { allowed: true, url: target.url.href };
    } catch (error) {
      if (error instanceof Refusal) return { allowed: false, reason: error.message };
      throw error;
    }
  }

  async post(request: WebhookRequest): Promise<WebhookOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      const target = this.target(request.url);
      const address = await withDeadline(this.checkedAddress(target), deadline);
      const response = await this.send(target, address, request, deadline);
      return { kind: 'response', status: response.status, excerpt: response.excerpt, latencyMs: latency() };
    } catch (error) {
      if (error instanceof Refusal) return { kind: 'error', error: `refused by the egress policy: ${error.message}`, refused: true, latencyMs: latency() };
      const message = deadline.aborted ? `timed out after ${this.timeoutMs} ms` : describeNetworkError(error);
      return { kind: 'error', error: message, refused: false, latencyMs: latency() };
    }
  }

  private target(raw: string): EndpointTarget {
    const parsed = parseEndpoint(raw, this.options);
    if ('reason' in parsed) throw new Refusal(parsed.reason);
    return parsed.target;
  }

  /** The address to connect to: the literal itself, or the first address of the name once every one passed. */
  private async checkedAddress(target: EndpointTarget): Promise<ResolvedAddress> {
    if (target.literal) return { address: target.host, family: target.host.includes(':') ? 6 : 4 };
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.options.resolve(target.host);
    } catch (error) {
      throw new Refusal(`${target.host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`);
    }
    if (addresses.length === 0) throw new Refusal(`${target.host} does not resolve`);
    // One forbidden address refuses the name: which one a client would pick is not ours to bet on.
    for (const { address } of addresses) {
      const refused = addressRefusal(address, target.url.protocol, this.options);
      if (refused) throw new Refusal(`${target.host} resolves to ${refused.replace(/^\S+ is /, `${address}, `)}`);
    }
    return addresses[0]!;
  }

  private send(target: EndpointTarget, address: ResolvedAddress, request: WebhookRequest, deadline: AbortSignal): Promise<{ status: number; excerpt: string }> {
    const { url } = target;
    const https = url.protocol === 'https:';
    // Connect only to the checked address, whatever the name resolves to by now.
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, [address]);
      else callback(null, address.address, address.family);
    };
    const body = Buffer.from(request.body, 'utf8');
    return new Promise((resolve, reject) => {
      const req = (https ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        host: target.host,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          ...request.headers,
          host: url.host,
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': this.options.userAgent ?? 'agent-ledger-webhooks',
        },
        agent: false,
        ...(target.literal ? {} : { lookup: pinned }),
        // SNI names the host (never an IP literal, and without the trailing dot of an absolute name; RFC 6066 §3).
        ...(https && !target.literal ? { servername: target.host.replace(/\.$/, '') } : {}),
        ...(this.options.ca ? { ca: this.options.ca } : {}),
        signal: deadline,
      });
      req.on('error', reject);
      req.on('response', (res: IncomingMessage) => {
        const kept: Buffer[] = [];
        let keptBytes = 0;
        let read = 0;
        const finish = () => {
          const excerpt = Buffer.concat(kept).subarray(0, this.excerptBytes);
          resolve({ status: res.statusCode ?? 0, excerpt: excerpt.toString('utf8') });
        };
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (keptBytes < this.excerptBytes) {
            kept.push(chunk);
            keptBytes += chunk.length;
          }
          if (read >= this.maxResponseBytes) {
            // Enough: the status is known, the rest is the endpoint's business. Closing the
            // connection is the only way to stop a large body without reading it.
            res.destroy();
            finish();
          }
        });
        res.on('end', finish);
        res.on('error', (error) => (read >= this.maxResponseBytes ? finish() : reject(error)));
      });
      req.end(body);
    });
  }
}

/** Races `promise` with the deadline's abort. */
function withDeadline<T>(promise: Promise<T>, deadline: AbortSignal): Promise<T> {
  if (deadline.aborted) return Promise.reject(deadline.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadline.reason);
    deadline.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onAbort));
  });
}

/** A short, stable description of a connection failure for the delivery log (never a stack). */
function describeNetworkError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${code}: ${message}`.slice(0, 300) : message.slice(0, 300);
}
