/**
 * The conformance vectors (protocol/test/vectors/, format in its README.md) are what the
 * protocol's code generates (no drift: run `npm run vectors` after a deliberate change),
 * and every vector, the negative ones first, holds against this implementation when read
 * back from the committed files, exactly as another implementation would read them.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  Base64urlError,
  CanonicalizationError,
  ProtocolError,
  assertValidPublicKey,
  b64uDecode,
  b64uEncode,
  canonicalize,
  isB64u,
  jwkThumbprint,
  merkleRoot,
  payloadHash,
  privateKeyFromSeed,
  rawPublicKey,
  sha256B64u,
  sign,
  verify,
  verifyInclusion,
  verifyInclusionProof,
  verifyReceipt,
  verifyRecordSignature,
  type InclusionProof,
  type OperationRecord,
  type Receipt,
} from '../src/index.js';
import { generateVectors, vectorFileText } from './vectorgen/index.js';
import { acceptsCanonicalText } from './vectorgen/jcs.js';
import { hex, toHex } from './vectors.js';

const dir = new URL('./vectors/', import.meta.url);
const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as T;

type Negative = { name: string; error: string; why: string };

/** The error codes each negative file may use (the README lists them with their meaning). */
const ERRORS: Record<string, string[]> = {
  'jcs-invalid.json': ['not_canonical', 'repeated_member', 'number_not_i_json', 'lone_surrogate', 'not_json'],
  'base64url-invalid.json': ['padding', 'alphabet', 'length', 'trailing_bits'],
  'ed25519-invalid.json': ['signature', 'signature_scalar', 'small_order_key', 'signature_length'],
  'keys-invalid.json': ['small_order', 'non_canonical', 'not_on_curve', 'length', 'base64url'],
  'records-invalid.json': ['signature', 'payload_hash'],
  'receipt-invalid.json': ['signature', 'receipt_hash', 'unknown_kid', 'kid_not_thumbprint'],
  'merkle-invalid.json': ['root_mismatch', 'path_length', 'index_out_of_range', 'encoding'],
};

describe('the committed vectors are what the protocol code generates', () => {
  const generated = generateVectors();

  for (const [name, content] of Object.entries(generated)) {
    it(`${name} has not drifted (regenerate with npm run vectors)`, () => {
      expect(readFileSync(new URL(name, dir), 'utf8')).toBe(vectorFileText(content));
    });
  }

  it('the folder holds exactly the generated files and the README', () => {
    // checkpoint.json (the epoch log, docs/CHECKPOINTS.md) is written by scripts/checkpoint-vectors.ts,
    // whose signed notes need the asynchronous signer; protocol/test/tlog/tlog.test.ts runs it.
    expect(readdirSync(dir).sort()).toEqual([...Object.keys(generated), 'checkpoint.json', 'README.md'].sort());
  });

  for (const [name, codes] of Object.entries(ERRORS)) {
    it(`${name}: every case names why it must fail with a documented code`, () => {
      const cases = read<Negative[]>(name);
      expect(cases.length).toBeGreaterThan(2);
      for (const c of cases) {
        expect(codes, c.name).toContain(c.error);
        expect(c.why.length, c.name).toBeGreaterThan(0);
      }
      expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    });
  }
});

describe('JCS', () => {
  it('jcs-numbers.json: RFC 8785 Appendix B serializations, and no serialization for NaN and Infinity', () => {
    for (const v of read<{ bits: string; canonical?: string; error?: string }[]>('jcs-numbers.json')) {
      const value = new DataView(hex(v.bits).buffer).getFloat64(0, false);
      if (v.error === undefined) expect(canonicalize(value), v.bits).toBe(v.canonical);
      else expect(() => canonicalize(value), v.bits).toThrow(CanonicalizationError);
    }
  });

  for (const v of read<(Negative & { text: string })[]>('jcs-invalid.json')) {
    it(`jcs-invalid: refuses ${v.name} (${v.error})`, () => {
      expect(acceptsCanonicalText(v.text)).toBe(false);
      if (v.error === 'number_not_i_json' || v.error === 'lone_surrogate') {
        // Parsed, the value has no canonical form equal to the text: a lone surrogate or an
        // infinite number cannot be canonicalized at all, a rounded integer comes back different.
        const parsed: unknown = JSON.parse(v.text);
        expect(() => {
          if (canonicalize(parsed) !== v.text) throw new CanonicalizationError('differs');
        }).toThrow(CanonicalizationError);
      }
    });
  }
  it('the canonical rule accepts the canonical texts of jcs.json', () => {
    for (const v of read<{ canonical: string }[]>('jcs.json')) expect(acceptsCanonicalText(v.canonical)).toBe(true);
  });
});

describe('base64url', () => {
  it('base64url.json: each byte string has exactly its one spelling', () => {
    for (const v of read<{ hex: string; b64u: string }[]>('base64url.json')) {
      expect(b64uEncode(hex(v.hex))).toBe(v.b64u);
      expect(toHex(b64uDecode(v.b64u))).toBe(v.hex);
    }
  });
  for (const v of read<(Negative & { text: string })[]>('base64url-invalid.json')) {
    it(`base64url-invalid: refuses ${v.name} (${v.error})`, () => {
      expect(() => b64uDecode(v.text)).toThrow(Base64urlError);
      expect(isB64u(v.text)).toBe(false);
    });
  }
});

describe('Ed25519 and keys', () => {
  it('ed25519.json: RFC 8032 §7.1 keys and signatures reproduce and verify', () => {
    for (const v of read<{ seed_hex: string; public_key_hex: string; public_key: string; message_hex: string; signature_hex: string }[]>('ed25519.json')) {
      const key = privateKeyFromSeed(hex(v.seed_hex));
      expect(toHex(rawPublicKey(key))).toBe(v.public_key_hex);
      expect(b64uEncode(rawPublicKey(key))).toBe(v.public_key);
      expect(toHex(sign(key, hex(v.message_hex)))).toBe(v.signature_hex);
      expect(verify(v.public_key, hex(v.message_hex), hex(v.signature_hex))).toBe(true);
    }
  });
  for (const v of read<(Negative & { public_key_hex: string; message_hex: string; signature_hex: string })[]>('ed25519-invalid.json')) {
    it(`ed25519-invalid: refuses ${v.name} (${v.error})`, () => {
      expect(verify(hex(v.public_key_hex), hex(v.message_hex), hex(v.signature_hex))).toBe(false);
    });
  }
  for (const v of read<(Negative & { public_key: string })[]>('keys-invalid.json')) {
    it(`keys-invalid: refuses ${v.name} (${v.error})`, () => {
      expect(() => assertValidPublicKey(v.public_key)).toThrow(ProtocolError);
      try {
        assertValidPublicKey(v.public_key);
      } catch (err) {
        expect((err as ProtocolError).code).toBe('INVALID_PUBLIC_KEY');
      }
      expect(verify(v.public_key, new Uint8Array(), new Uint8Array(64))).toBe(false);
    });
  }
  it('jwk.json: the RFC 7638 canonical form and thumbprint of each key', () => {
    const cases = read<{ name: string; jwk: Record<string, string>; canonical: string; thumbprint: string }[]>('jwk.json');
    expect(cases.map((c) => c.thumbprint)).toContain('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs'); // RFC 7638 §3.1
    expect(cases.map((c) => c.thumbprint)).toContain('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k'); // RFC 8037 §A.3
    for (const c of cases) {
      const required = c.jwk.kty === 'RSA' ? { e: c.jwk.e, kty: c.jwk.kty, n: c.jwk.n } : { crv: c.jwk.crv, kty: c.jwk.kty, x: c.jwk.x };
      expect(canonicalize(required), c.name).toBe(c.canonical);
      expect(sha256B64u(new TextEncoder().encode(c.canonical)), c.name).toBe(c.thumbprint);
      if (c.jwk.kty === 'OKP') expect(jwkThumbprint({ crv: c.jwk.crv!, kty: c.jwk.kty, x: c.jwk.x! })).toBe(c.thumbprint);
    }
  });
});

describe('records and receipts', () => {
  for (const v of read<(Negative & { record: OperationRecord; public_key: string })[]>('records-invalid.json')) {
    it(`records-invalid: refuses ${v.name} (${v.error})`, () => {
      if (v.error === 'signature') expect(verifyRecordSignature(v.record, v.public_key)).toBe(false);
      else {
        // The signature covers payload_hash, not the payload: it still verifies, the hash does not.
        expect(verifyRecordSignature(v.record, v.public_key)).toBe(true);
        expect(payloadHash(v.record.payload)).not.toBe(v.record.payload_hash);
      }
    });
  }
  for (const v of read<(Negative & { receipt: Receipt; jwks: { keys: never[] } })[]>('receipt-invalid.json')) {
    it(`receipt-invalid: refuses ${v.name} (${v.error})`, () => {
      expect(verifyReceipt(v.receipt, v.jwks)).toBe(false);
    });
  }
  it('the unaltered receipt verifies (the negative cases fail for their own reason)', () => {
    const { receipt, service } = read<{ receipt: Receipt; service: { jwk: never } }>('receipt.json');
    expect(verifyReceipt(receipt, { keys: [service.jwk] })).toBe(true);
  });
});

describe('Merkle', () => {
  it('merkle-rfc6962.json: the Certificate Transparency roots and every inclusion proof', () => {
    const v = read<{ leaves_hex: string[]; roots: { tree_size: number; root_hex: string }[]; inclusion: { leaf_index: number; tree_size: number; audit_path_hex: string[] }[] }>('merkle-rfc6962.json');
    const leaves = v.leaves_hex.map((l) => new Uint8Array(createHash('sha256').update(Buffer.from([0])).update(Buffer.from(l, 'hex')).digest()));
    expect(v.roots.at(-1)?.root_hex).toBe('5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328'); // RFC 6962 reference, 8 leaves
    for (const r of v.roots) expect(toHex(merkleRoot(leaves.slice(0, r.tree_size)))).toBe(r.root_hex);
    for (const p of v.inclusion) {
      const root = hex(v.roots[p.tree_size - 1]!.root_hex);
      expect(verifyInclusion(leaves[p.leaf_index]!, p.leaf_index, p.tree_size, p.audit_path_hex.map(hex), root)).toBe(true);
    }
  });
  for (const v of read<(Negative & { chain_hash: string; proof: InclusionProof })[]>('merkle-invalid.json')) {
    it(`merkle-invalid: refuses ${v.name} (${v.error})`, () => {
      expect(verifyInclusionProof(v.chain_hash, v.proof)).toBe(false);
    });
  }
});
