// Guards the package's own rules: pure (node:crypto / node:buffer, plus hash-wasm, asn1js and
// @noble/curves (Ed25519 point decoding), which run in a browser too, each in the one file
// that wraps it; the browser twins in src/browser/ use @noble instead of node:), NodeNext-style
// relative imports, every exported function documented with an example, stable API names.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const srcDir = new URL('../src/', import.meta.url);
// Every module of src/ and its folders (bundle/, verify/, timestamp/, ...), the browser twins apart.
const files = readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && !f.startsWith('browser/'))
  .sort();
/** The only third-party imports: each library behind one file, so a browser build swaps nothing else. */
const WRAPPED_LIBRARIES: Record<string, string[]> = { 'resumablesha256.ts': ['hash-wasm'], 'timestamp/token.ts': ['asn1js'], 'curve.ts': ['@noble/curves/ed25519.js'] };
/** The browser twins (browser-plugin.ts): no node: at all, @noble instead, siblings and the shared modules above them. */
const browserDir = new URL('../src/browser/', import.meta.url);
const BROWSER_LIBRARIES: Record<string, string[]> = { 'hash.ts': ['@noble/hashes/sha2.js'], 'ed25519.ts': ['@noble/curves/ed25519.js', '@noble/hashes/sha2.js'] };

describe('package rules', () => {
  for (const file of files) {
    const text = readFileSync(new URL(file, srcDir), 'utf8');

    it(`${file} imports only node:crypto, node:buffer, its wrapped library and siblings (.js)`, () => {
      const specifiers = [...text.matchAll(/(?:import|export)[^'";]*?from\s+'([^']+)'/g)].map((m) => m[1]!);
      const allowed = ['node:crypto', 'node:buffer', ...(WRAPPED_LIBRARIES[file] ?? [])];
      for (const s of specifiers) {
        expect(allowed.includes(s) || /^\.\.?\/(?:\.\.\/)*(?:[a-z0-9]+\/)*[a-z0-9]+\.js$/.test(s), `${file}: ${s}`).toBe(true);
      }
      expect(text).not.toMatch(/\brequire\(|\bimport\(/);
    });

    it(`${file} documents every exported function with an @example`, () => {
      const exported = [...text.matchAll(/^export (?:function|class) (\w+)/gm)];
      for (const m of exported) {
        const before = text.slice(0, m.index);
        const doc = before.slice(before.lastIndexOf('/**'));
        expect(doc.includes('*/') && doc.includes('@example'), `${file}: ${m[1]}`).toBe(true);
      }
    });
  }

  for (const file of readdirSync(browserDir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(new URL(file, browserDir), 'utf8');
    it(`browser/${file} imports no node: module, only @noble, siblings and shared modules`, () => {
      const specifiers = [...text.matchAll(/(?:import|export)[^'";]*?from\s+'([^']+)'/g)].map((m) => m[1]!);
      for (const s of specifiers) {
        expect((BROWSER_LIBRARIES[file] ?? []).includes(s) || /^\.\.?\/[a-z0-9]+\.js$/.test(s), `browser/${file}: ${s}`).toBe(true);
      }
    });
  }

  it('index re-exports the agreed API', () => {
    const names = [
      'ProtocolError', 'CanonicalizationError', 'Base64urlError',
      'canonicalize', 'canonicalBytes',
      'b64uEncode', 'b64uDecode', 'isB64u',
      'sha256', 'sha256B64u',
      'publicKeyFromRaw', 'assertValidPublicKey', 'publicKeyProblem', 'signatureScalarInRange', 'privateKeyFromSeed', 'generateKeyPair', 'rawPublicKey', 'sign', 'verify',
      'OP_VERSION', 'MAX_TTL_MS', 'GENESIS', 'RECORD_FIELDS', 'payloadHash', 'signingInput', 'signRecord',
      'verifyRecordSignature', 'recordDigest', 'chainHash',
      'RECEIPT_VERSION', 'receiptHash', 'receiptSigningInput', 'verifyReceipt', 'finishReceipt',
      'jwkThumbprint', 'ed25519Jwk', 'publicKeyFromJwk',
      'leafHash', 'nodeHash', 'merkleRoot', 'merkleRootB64u', 'inclusionProof', 'verifyInclusion',
      'inclusionProofFor', 'inclusionProofsFor', 'verifyInclusionProof', 'MerkleTree',
      'uuidv7',
      'b64Encode', 'b64Decode', 'verifyWithJwks', 'createResumableSha256', 'readTimeStampToken', 'SHA256_OID', 'TIMESTAMP_OIDS', 'hasTimeStampingUsage',
      'EXPORT_BUNDLE_VERSION', 'STORED_ROW_FIELDS', 'SIGNED_RECORD_FIELDS', 'ExportBundleWriter', 'EXPORT_CHECKPOINT_VERSION',
      'EXPORT_CHECKS', 'verifyExportBundle',
    ];
    for (const n of names) expect(api, n).toHaveProperty(n);
    expect(api.OP_VERSION).toBe('1.0');
    expect(api.RECEIPT_VERSION).toBe('1.0');
    expect(api.EXPORT_BUNDLE_VERSION).toBe('1.2');
  });

  it('errors carry their codes and names', () => {
    const c = new api.CanonicalizationError('x');
    const b = new api.Base64urlError('y');
    const p = new api.ProtocolError('INVALID_PUBLIC_KEY', 'z');
    expect([c.code, c.name, c instanceof api.ProtocolError, c instanceof Error]).toEqual(['CANONICALIZATION', 'CanonicalizationError', true, true]);
    expect([b.code, b.name, b instanceof api.ProtocolError]).toEqual(['BASE64URL', 'Base64urlError', true]);
    expect([p.code, p.name, p.message]).toEqual(['INVALID_PUBLIC_KEY', 'ProtocolError', 'z']);
  });
});
