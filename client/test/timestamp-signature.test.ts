/**
 * The RFC 3161 signature check of `agent-ledger verify --tsa-ca` (client/src/verify/timestamp-signature.ts,
 * docs/EXPORT.md "Time-stamps"), on tokens of a real `openssl ts -reply` authority: the
 * recorded scenario tokens chain to their CA; the same token with one signature byte flipped,
 * a token checked against another CA, a certificate that is no certificate, and bytes that
 * are no token each get their own reason.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64Decode } from '@agent-ledger/protocol';
import { startOpensslTsa, type OpensslTsa } from '../../test/support/openssl-tsa.js';
import { readCertificates, timestampSignatureProblem, timestampVerdicts } from '../src/verify/timestamp-signature.js';
import { materialize, base } from '../../protocol/test/exportscenario.js';

type Fixture = { tsa_ca_pem: string; tokens: { tsa_token: string }[] };
const fixture = JSON.parse(readFileSync(new URL('../../protocol/test/fixtures/tsa-tokens.json', import.meta.url), 'utf8')) as Fixture;
const ca = readCertificates(Buffer.from(fixture.tsa_ca_pem));
const token = b64Decode(fixture.tokens[0]!.tsa_token);
let other: OpensslTsa;

beforeAll(async () => {
  other = await startOpensslTsa();
});
afterAll(async () => {
  await other?.stop();
});

describe('timestampSignatureProblem', () => {
  it('a genuine token chains to the CA that issued its TSA certificate (validity judged at genTime: the recorded tokens\' 2-day certificates have expired since, and still verify)', async () => {
    expect(await timestampSignatureProblem(token, ca)).toBeNull();
  });

  it('the last byte of the signature flipped: the CMS signature does not verify', async () => {
    const flipped = Uint8Array.from(token);
    flipped[flipped.byteLength - 1]! ^= 0x01;
    expect(await timestampSignatureProblem(flipped, ca)).toBe('the CMS signature does not verify');
  });

  it('checked against another CA: the signer does not chain to it', async () => {
    const another = readCertificates(readFileSync(other.caFile));
    expect(await timestampSignatureProblem(token, another)).toBe('the signer certificate does not chain to the TSA certificate you gave (--tsa-ca), at genTime');
  });

  it('a token stamped after its TSA certificate expired: reported as expired, with the dates', async () => {
    const expired = await startOpensslTsa({ expiredCertificate: true });
    try {
      const stamped = await expired.stampDigest(new Uint8Array(32).fill(7));
      expect(await timestampSignatureProblem(stamped, readCertificates(readFileSync(expired.caFile)))).not.toBeNull();
      const problem = await timestampSignatureProblem(stamped, readCertificates(readFileSync(expired.caFile)));
      expect(problem).toMatch(/^the TSA certificate was not valid at genTime .+: valid from .+ until .+ \(expired\)$/);
    } finally {
      await expired.stop();
    }
  });

  it('bytes that are no token, and a file that is no certificate', async () => {
    expect(await timestampSignatureProblem(Buffer.from('not a token'), ca)).toBe('the token does not parse as an RFC 3161 TimeStampToken');
    expect(() => readCertificates(Buffer.from('hello'))).toThrow('not a PEM or DER X.509 certificate');
  });

  it('timestampVerdicts: one verdict per anchored epoch of a bundle, by its token text', async () => {
    const verdicts = await timestampVerdicts(materialize(base), ca);
    expect([...verdicts.values()]).toEqual([null, null]);
    expect(await timestampVerdicts({ body: null }, ca)).toEqual(new Map());
  });
});
