import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError, b64Decode, b64Encode, createResumableSha256, sha256 } from '../../src/index.js';

describe('createResumableSha256', () => {
  it('equals one-shot SHA-256 across saves and loads through text at any split (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 8 }), async (parts) => {
        let h = await createResumableSha256();
        for (const p of parts) {
          h.update(p);
          h = await createResumableSha256(h.save());
        }
        expect(h.digest()).toEqual(sha256(...parts, new Uint8Array()));
      }),
      { numRuns: 50 },
    );
  });

  it('FIPS 180-4 "abc"', async () => {
    const h = await createResumableSha256();
    h.update(new TextEncoder().encode('abc'));
    expect(Buffer.from(h.digest()).toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('refuses a state that is not one, and use after digest', async () => {
    await expect(createResumableSha256('AAAA')).rejects.toMatchObject({ code: 'INVALID_HASH_STATE' });
    await expect(createResumableSha256('not base64url!')).rejects.toMatchObject({ code: 'INVALID_HASH_STATE' });
    const h = await createResumableSha256();
    h.digest();
    expect(() => h.update(new Uint8Array(1))).toThrow(ProtocolError);
    expect(() => h.save()).toThrow(expect.objectContaining({ code: 'INVALID_HASH_STATE' }));
  });
});

describe('b64Encode / b64Decode (RFC 4648 §4, the tsa_token encoding)', () => {
  it('round-trips any bytes (fast-check)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(b64Decode(b64Encode(bytes))).toEqual(bytes);
      }),
    );
  });
  it('accepts exactly one spelling', () => {
    expect(b64Decode('+/8=')).toEqual(new Uint8Array([0xfb, 0xff]));
    for (const bad of ['+/8', '-_8=', '+/9=', ' +/8=', '+/8=\n', '+/8==', 'A===', '=']) {
      expect(() => b64Decode(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'BASE64URL' }));
    }
  });
});
