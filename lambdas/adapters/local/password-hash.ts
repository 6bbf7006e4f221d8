/**
 * Password hashes of the local identity provider: scrypt (RFC 7914) with a random 16-byte
 * salt per password and N=2^17, r=8, p=1, the first of the OWASP Password Storage Cheat
 * Sheet's scrypt profiles (128 MiB and a few hundred milliseconds of CPU per hash: the price
 * an attacker pays per guess of a stolen hash; LEDGER_SCRYPT_N, config.ts, may change N).
 * Stored as `scrypt$N$r$p$<salt>$<hash>` in base64url, so the parameters can be raised
 * without breaking stored hashes: a hash made with weaker ones is replaced at the next
 * successful sign-in ({@link needsRehash}). Comparison is constant-time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { config } from '../../config.js';

const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** The largest N a stored hash may ask for (config.ts allows up to 2^20 for new ones). */
const MAX_N = 2 ** 20;
/** scrypt needs 128 * N * r bytes; Node refuses anything over maxmem. */
const MAX_MEMORY = 2 * 128 * MAX_N * R;

/** The parameters new hashes are made with. */
function currentParams(): ScryptOptions & { N: number; r: number; p: number } {
  return { N: config().scryptN, r: R, p: P };
}

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const params = currentParams();
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** The parameters of a stored hash, or undefined when it is not one of ours or asks for more memory than we allow. */
function storedParams(stored: string) {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !hash) return undefined;
  if (![params.N, params.r, params.p].every((value) => Number.isSafeInteger(value) && value > 0)) return undefined;
  if (128 * params.N * params.r > MAX_MEMORY) return undefined;
  return { ...params, salt, hash };
}

/** True when a stored hash was made with weaker parameters than new ones get: rehash it once the password is known. */
export function needsRehash(stored: string): boolean {
  const params = storedParams(stored);
  const current = currentParams();
  return params === undefined || params.N < current.N || params.r < current.r || params.p < current.p;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const params = storedParams(stored);
  if (params === undefined) return false;
  const { salt, hash, N, r, p } = params;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N, r, p });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash of nothing anyone knows, checked when an email is unknown so that such a sign-in
 * costs the same scrypt work as a wrong password (no account enumeration by timing).
 */
let dummy: Promise<string> | undefined;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummy;
}
