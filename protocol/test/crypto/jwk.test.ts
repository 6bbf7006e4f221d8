import { describe, expect, it } from 'vitest';
import { ProtocolError, ed25519Jwk, jwkThumbprint, publicKeyFromJwk, rawPublicKey, b64uEncode } from '../../src/index.js';
import { hex, loadVectors } from '../vectors.js';

type ReceiptVectors = { service: { seed_hex: string; jwk: Record<string, string> } };

describe('RFC 7638 thumbprints', () => {
  it('RFC 8037 §A.3 Ed25519 example', () => {
    expect(jwkThumbprint({ crv: 'Ed25519', kty: 'OKP', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' })).toBe(
      'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
    );
  });
  it('ignores optional members and member order', () => {
    const jwk = { x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kty: 'OKP', kid: 'k', use: 'sig', crv: 'Ed25519' };
    expect(jwkThumbprint(jwk)).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
  });
});

describe('ed25519Jwk', () => {
  it('builds the RFC 8037 example key with its thumbprint as kid', () => {
    const raw = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    const expected = {
      kty: 'OKP',
      crv: 'Ed25519',
      x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
      kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
      alg: 'EdDSA',
      use: 'sig',
    };
    expect(ed25519Jwk(raw)).toEqual(expected);
    expect(ed25519Jwk(expected.x)).toEqual(expected);
  });
  it('reproduces the service JWK of receipt.json', () => {
    const { service } = loadVectors<ReceiptVectors>('receipt.json');
    expect(ed25519Jwk(service.jwk.x!)).toEqual(service.jwk);
    expect(jwkThumbprint(service.jwk as { crv: string; kty: string; x: string })).toBe(service.jwk.kid);
  });
  it('rejects keys that are not 32 bytes', () => {
    expect(() => ed25519Jwk(new Uint8Array(31))).toThrow(expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }) as Error);
    expect(() => ed25519Jwk('AAAA')).toThrow(expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }) as Error);
  });
});

describe('publicKeyFromJwk', () => {
  it('imports an Ed25519 JWK', () => {
    const jwk = ed25519Jwk('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo');
    expect(b64uEncode(rawPublicKey(publicKeyFromJwk(jwk)))).toBe(jwk.x);
  });
  it('rejects other key types and curves', () => {
    const x = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
    for (const jwk of [{ kty: 'EC', crv: 'Ed25519', x }, { kty: 'OKP', crv: 'X25519', x }, { kty: 'OKP', x }]) {
      expect(() => publicKeyFromJwk(jwk)).toThrow(expect.objectContaining({ code: 'INVALID_JWK' }) as Error);
    }
    expect(() => publicKeyFromJwk(null as never)).toThrow(ProtocolError);
    expect(() => publicKeyFromJwk({ kty: 'OKP', crv: 'Ed25519' })).toThrow(
      expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }) as Error,
    );
    expect(() => publicKeyFromJwk({ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' })).toThrow(
      expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }) as Error,
    );
  });
});
