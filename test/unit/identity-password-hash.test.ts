// The local identity provider's password hashes (adapters/local/password-hash.ts): scrypt at
// OWASP's parameters, a salt per password, parameters stored with the hash, constant-time
// comparison, and weaker hashes marked for rehashing.
import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from '../../lambdas/adapters/local/password-hash.js';
import { useLocalConfig } from '../support/local-config.js';

// The rules hold for any N; most tests run at the floor (2^14) to stay quick, the first at the default.
beforeAll(() => useLocalConfig({ LEDGER_SCRYPT_N: '16384' }));
afterAll(() => useLocalConfig({ LEDGER_SCRYPT_N: '' }));

/** A hash in the stored format made with other parameters, as an older version wrote it. */
function legacyHash(password: string, N = 16384, r = 8, p = 1): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 32, { N, r, p, maxmem: 256 * 1024 * 1024 });
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

describe('scrypt password hashes', () => {
  it('stores scheme, parameters, salt and hash, and verifies the right password only', async () => {
    // LEDGER_SCRYPT_N unset (''): the default parameters.
    useLocalConfig({ LEDGER_SCRYPT_N: '' });
    const stored = await hashPassword('correct horse battery').finally(() => useLocalConfig({ LEDGER_SCRYPT_N: '16384' }));
    // OWASP Password Storage Cheat Sheet, scrypt: N=2^17, r=8, p=1.
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(needsRehash(stored)).toBe(false); // stronger than the N=2^14 now configured: kept
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts each password: the same password hashes differently', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.toBe(b);
    expect(a.split('$')[4]).not.toBe(b.split('$')[4]);
  });

  it('normalizes Unicode (NFKC) so the same password typed differently still matches', async () => {
    const stored = await hashPassword('caf\u00e9-password');
    expect(await verifyPassword('cafe\u0301-password', stored)).toBe(true);
  });

  it('reads the parameters from the stored hash, so stronger ones can come later', async () => {
    const stored = await hashPassword('pw-12345678');
    const [, , r, p, salt, hash] = stored.split('$');
    // Same salt and hash under other parameters no longer verify: the parameters are used.
    expect(await verifyPassword('pw-12345678', ['scrypt', 1024, r, p, salt, hash].join('$'))).toBe(false);
  });

  it('verifies hashes made with older parameters, and marks them for rehashing', async () => {
    const old = legacyHash('pw-12345678', 8192);
    expect(await verifyPassword('pw-12345678', old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
    expect(needsRehash(legacyHash('pw', 16384))).toBe(false);
    expect(needsRehash(legacyHash('pw', 16384, 4))).toBe(true);
    expect(needsRehash('bcrypt$10$abc')).toBe(true);
    // With the default N=2^17, a 2^14 hash is weaker.
    useLocalConfig({ LEDGER_SCRYPT_N: '' });
    try {
      expect(needsRehash(legacyHash('pw', 16384))).toBe(true);
    } finally {
      useLocalConfig({ LEDGER_SCRYPT_N: '16384' });
    }
  });

  it('refuses stored parameters that would take more memory than allowed, instead of trying', async () => {
    const [, , r, p, salt, hash] = (await hashPassword('pw')).split('$');
    expect(await verifyPassword('pw', ['scrypt', 2 ** 22, r, p, salt, hash].join('$'))).toBe(false);
  });

  it('rejects malformed stored values instead of throwing', async () => {
    expect(await verifyPassword('x', 'plain-text-password')).toBe(false);
    expect(await verifyPassword('x', 'bcrypt$10$abc')).toBe(false);
  });

  it('has a dummy hash no password matches, for unknown emails', async () => {
    const dummy = await dummyHash();
    expect(dummy).toBe(await dummyHash());
    expect(await verifyPassword('password', dummy)).toBe(false);
  });
});
