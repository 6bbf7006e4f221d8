/**
 * The RFC 3161 client against a real time-stamping authority (`openssl ts -reply` behind
 * HTTP, test/support/openssl-tsa.ts): a token it accepts is one `openssl ts -verify` accepts
 * too, and every response that fails one of the checks of docs/PROTOCOL.md (RFC 3161 anchor) is refused before storage.
 */
import { randomBytes } from 'node:crypto';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Rfc3161Client } from '../../lambdas/adapters/tsa/rfc3161-client.js';
import { timeStampRequest, TimestampError } from '../../lambdas/adapters/tsa/rfc3161-messages.js';
import { startOpensslTsa, type OpensslTsa } from '../support/openssl-tsa.js';

let tsa: OpensslTsa;
beforeAll(async () => {
  tsa = await startOpensslTsa();
});
afterAll(() => tsa.stop());
beforeEach(() => tsa.behave({ kind: 'ok' }));

describe('TimeStampReq', () => {
  it('asks for SHA-256 over the given digest, with a nonce and certReq', () => {
    const digest = randomBytes(32);
    const request = pkijs.TimeStampReq.fromBER(timeStampRequest(digest, 2n ** 64n - 1n));
    expect(request.version).toBe(1);
    expect(request.messageImprint.hashAlgorithm.algorithmId).toBe('2.16.840.1.101.3.4.2.1');
    expect(Buffer.from(request.messageImprint.hashedMessage.valueBlock.valueHexView)).toEqual(digest);
    expect(request.nonce?.toBigInt()).toBe(2n ** 64n - 1n);
    expect(request.certReq).toBe(true);
    expect(() => timeStampRequest(randomBytes(31), 1n)).toThrow(TimestampError);
  });
});

describe('Rfc3161Client', () => {
  it('returns a token that openssl ts -verify accepts for the digest, and its genTime', async () => {
    const digest = randomBytes(32);
    const before = Math.floor(Date.now() / 1000) * 1000;
    const stamp = await new Rfc3161Client(tsa.url).timestamp(digest);
    expect(stamp.genTime).toBeGreaterThanOrEqual(before);
    expect(stamp.genTime).toBeLessThanOrEqual(Date.now());
    await expect(tsa.verifyToken(stamp.token, digest)).resolves.toContain('Verification: OK');
    // ... and only for that digest.
    await expect(tsa.verifyToken(stamp.token, randomBytes(32))).rejects.toThrow();
  });

  it.each([
    ['reject', /refused the request: status 2/],
    ['garbage', /not a TimeStampResp/],
    ['error', /HTTP 500/],
    ['tamper', /signature/],
  ] as const)('refuses a %s response', async (kind, message) => {
    tsa.behave({ kind });
    await expect(new Rfc3161Client(tsa.url).timestamp(randomBytes(32))).rejects.toThrow(message);
  });

  it('refuses a genuine reply to another request: other digest, or same digest and other nonce', async () => {
    const digest = randomBytes(32);
    const client = new Rfc3161Client(tsa.url);
    await client.timestamp(digest);
    tsa.behave({ kind: 'replay' });
    await expect(client.timestamp(digest)).rejects.toThrow('nonce does not match the request');
    await expect(client.timestamp(randomBytes(32))).rejects.toThrow('message imprint does not match the request');
  });

  it('gives up on a slow authority after its timeout', async () => {
    tsa.behave({ kind: 'delay', ms: 10_000 });
    const started = Date.now();
    await expect(new Rfc3161Client(tsa.url, { timeoutMs: 200 }).timestamp(randomBytes(32))).rejects.toThrow(/no reply within 200 ms/);
    // Well under the delay, with room for `openssl ts -reply` and a busy machine.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports an unreachable authority as a TimestampError', async () => {
    await expect(new Rfc3161Client('http://127.0.0.1:9/tsa', { timeoutMs: 1_000 }).timestamp(randomBytes(32))).rejects.toThrow(
      TimestampError,
    );
  });
});
