// The local identity provider's password hashes (adapters/local/password-hash.ts): scrypt,
// a salt per password, parameters stored with the hash, constant-time comparison.
import { describe, expect, it } from 'vitest';
import { dummyHash, hashPassword, verifyPassword } from '../../lambdas/adapters/local/password-hash.js';

describe('scrypt password hashes', () => {
  it('stores scheme, parameters, salt and hash, and verifies the right password only', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
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
