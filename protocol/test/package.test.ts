// Guards the package's own rules: pure (node:crypto / node:buffer, plus hash-wasm, asn1js and
// @noble/curves (Ed25519 point decoding), which run in a browser too, each in the one file
// that wraps it), NodeNext-style relative imports, every exported function documented with an
// example, stable API names. The modules that need node: at run time are the `default` targets
// of package.json `imports` (`#platform/...`); their `browser` twins use @noble instead, and
// every other module may name node: types only, so that a browser bundle holds no node: module.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const packageDir = new URL('../', import.meta.url);
const srcDir = new URL('../src/', import.meta.url);
// Every module of src/ and its folders (encoding/, crypto/, export/, verify/, ...).
const files = readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .sort();
/** package.json `imports`: `#platform/...` → the Node module (`default`) and its browser twin. */
const PLATFORM = (JSON.parse(readFileSync(new URL('package.json', packageDir), 'utf8')) as { imports: Record<string, { browser: string; default: string }> }).imports;
const inSrc = (target: string) => target.replace(/^\.\/src\//, '');
const NODE_MODULES = new Set(Object.values(PLATFORM).map((target) => inSrc(target.default)));
const BROWSER_TWINS = new Set(Object.values(PLATFORM).map((target) => inSrc(target.browser)));
/** The only third-party imports: each library behind one file, so a browser build swaps nothing else. */
const WRAPPED_LIBRARIES: Record<string, string[]> = {
  'export/resumablesha256.ts': ['hash-wasm'],
  'timestamp/token.ts': ['asn1js'],
  'crypto/curve.ts': ['@noble/curves/ed25519.js'],
  'crypto/sha256browser.ts': ['@noble/hashes/sha2.js'],
  'crypto/ed25519browser.ts': ['@noble/curves/ed25519.js', '@noble/hashes/sha2.js'],
};
const specifiersOf = (text: string) => [...text.matchAll(/(?:import|export)[^'";]*?from\s+'([^']+)'/g)].map((m) => m[1]!);

describe('package rules', () => {
  it('every `#platform/...` name has a Node module and a browser twin in src/', () => {
    for (const file of [...NODE_MODULES, ...BROWSER_TWINS]) expect(files, file).toContain(file);
  });

  for (const file of files) {
    const text = readFileSync(new URL(file, srcDir), 'utf8');

    it(`${file} imports only node:crypto, node:buffer, its wrapped library, #platform/ and siblings (.js)`, () => {
      const allowed = ['node:crypto', 'node:buffer', ...(WRAPPED_LIBRARIES[file] ?? []), ...Object.keys(PLATFORM)];
      for (const s of specifiersOf(text)) {
        expect(allowed.includes(s) || /^\.\.?\/(?:\.\.\/)*(?:[a-z0-9]+\/)*[a-z0-9]+\.js$/.test(s), `${file}: ${s}`).toBe(true);
      }
      expect(text).not.toMatch(/\brequire\(|\bimport\(/);
    });

    if (!NODE_MODULES.has(file)) {
      it(`${file} reaches node: for types only (it is in the browser bundle)`, () => {
        const runtime = [...text.matchAll(/^(?:import|export)(?! type )[^'";]*?from\s+'(node:[^']+)'/gm)].map((m) => m[1]!);
        expect(runtime, file).toEqual([]);
      });
    }

    it(`${file} documents every exported function with an @example`, () => {
      const exported = [...text.matchAll(/^export (?:function|class) (\w+)/gm)];
      for (const m of exported) {
        const before = text.slice(0, m.index);
        const doc = before.slice(before.lastIndexOf('/**'));
        expect(doc.includes('*/') && doc.includes('@example'), `${file}: ${m[1]}`).toBe(true);
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
