import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProtocolError, SHA256_OID, b64Decode, b64uEncode, readTimeStampToken } from '../../src/index.js';

type TokenFixture = { root_hash: string; tsa_token: string; anchored_at: number };
const TSA_TOKENS: TokenFixture[] = JSON.parse(readFileSync(new URL('../fixtures/tsa-tokens.json', import.meta.url), 'utf8')).tokens;

function expectTokenError(bytes: Uint8Array, message: RegExp): void {
  let caught: unknown;
  try {
    readTimeStampToken(bytes);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ProtocolError);
  expect(caught).toMatchObject({ code: 'INVALID_TIMESTAMP_TOKEN', message: expect.stringMatching(message) });
}

describe('readTimeStampToken on tokens of a real TSA (openssl ts -reply, recorded in fixtures/)', () => {
  it('there are tokens to read', () => {
    expect(TSA_TOKENS.length).toBe(2);
  });
  for (const [i, t] of TSA_TOKENS.entries()) {
    it(`token ${i}: SHA-256 imprint of exactly the root bytes, genTime = anchored_at`, () => {
      const info = readTimeStampToken(b64Decode(t.tsa_token));
      expect(info.hash_algorithm).toBe(SHA256_OID);
      expect(b64uEncode(info.hashed_message)).toBe(t.root_hash);
      expect(info.gen_time).toBe(t.anchored_at);
      expect(info.policy).toBe('1.3.6.1.4.1.99999.1'); // test/support/openssl-tsa.ts default_policy
      expect(info.serial_number).toMatch(/^[0-9a-f]+$/);
    });
  }
});

describe('readTimeStampToken refuses what is not a TimeStampToken', () => {
  const token = b64Decode(TSA_TOKENS[0]!.tsa_token);

  it('bytes that are not DER', () => expectTokenError(new TextEncoder().encode('this is not DER'), /not DER/));
  it('a truncated token', () => expectTokenError(token.slice(0, token.length - 10), /not DER/));
  it('trailing bytes', () => expectTokenError(new Uint8Array([...token, 0]), /trailing bytes/));
  it('a TimeStampResp instead of its token', () => {
    // TimeStampResp ::= SEQUENCE { status PKIStatusInfo, timeStampToken }: status 0 then the token.
    const status = [0x30, 0x03, 0x02, 0x01, 0x00];
    const body = [...status, ...token];
    const length = body.length < 0x10000 ? [0x82, body.length >> 8, body.length & 0xff] : [];
    expectTokenError(new Uint8Array([0x30, ...length, ...body]), /ContentInfo.contentType is not an OBJECT IDENTIFIER/);
  });
  it('SignedData over something else than TSTInfo', () => {
    const copy = token.slice();
    // id-ct-TSTInfo 1.2.840.113549.1.9.16.1.4 ends in ...10 01 04: make it ...10 01 05.
    const oid = Buffer.from([0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x04]);
    const at = Buffer.from(copy).indexOf(oid);
    expect(at).toBeGreaterThan(0);
    copy[at + oid.length - 1] = 0x05;
    expectTokenError(copy, /does not encapsulate a TSTInfo/);
  });
  it('not bytes at all', () => expectTokenError('token' as unknown as Uint8Array, /must be bytes/));
});
