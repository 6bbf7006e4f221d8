/**
 * The TimestampAuthority port over HTTP (RFC 3161 §3.4): POST the DER TimeStampReq as
 * `application/timestamp-query`, read the `application/timestamp-reply`, check it
 * (rfc3161-messages.ts) before anyone stores it. One implementation serves AWS and the local
 * stack alike: both reach the authority over HTTP.
 *
 * A slow or failing authority costs at most `timeoutMs` (10 s) per call, body
 * included, and the reply is capped in size, so the sealer's anchoring step is bounded.
 */
import { randomBytes } from 'node:crypto';
import type { TimeStamp, TimestampAuthority } from '../../domain/ports.js';
import { checkTimeStampResponse, timeStampRequest, TimestampError } from './rfc3161-messages.js';

const TSA_TIMEOUT_MS = 10_000;
/** A token with a certificate is a few KiB; anything far larger is not a time-stamp reply. */
const MAX_REPLY_BYTES = 256 * 1024;

interface Rfc3161ClientOptions {
  timeoutMs?: number;
}

/** A random positive 64-bit nonce (§2.4.1: "a large random number with a high probability ..."). */
function randomNonce(): bigint {
  return randomBytes(8).readBigUInt64BE();
}

async function readCapped(response: Response): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_REPLY_BYTES) throw new TimestampError(`reply of ${declared} bytes is too large`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > MAX_REPLY_BYTES) throw new TimestampError('reply is too large');
      chunks.push(chunk);
    }
  }
  return new Uint8Array(Buffer.concat(chunks));
}

export class Rfc3161Client implements TimestampAuthority {
  private readonly timeoutMs: number;

  constructor(
    readonly url: string,
    options: Rfc3161ClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? TSA_TIMEOUT_MS;
  }

  async timestamp(sha256Digest: Uint8Array): Promise<TimeStamp> {
    const nonce = randomNonce();
    const query = timeStampRequest(sha256Digest, nonce);
    // One signal for connect, headers and body: the whole exchange fits in the timeout.
    const signal = AbortSignal.timeout(this.timeoutMs);
    let reply: Uint8Array;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
        body: query,
        signal,
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new TimestampError(`TSA answered HTTP ${response.status}`);
      }
      reply = await readCapped(response);
    } catch (error) {
      if (error instanceof TimestampError) throw error;
      const reason = signal.aborted ? `no reply within ${this.timeoutMs} ms` : (error as Error).message;
      throw new TimestampError(`TSA request failed: ${reason}`, { cause: error });
    }
    return checkTimeStampResponse(reply, { sha256Digest, nonce });
  }
}
