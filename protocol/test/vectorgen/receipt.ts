/**
 * receipt.json (the service's receipt for records.json's first record, signed with
 * RFC 8032 TEST 2's key) and receipt-invalid.json (receipts that must not verify).
 */
import {
  b64uEncode,
  ed25519Jwk,
  finishReceipt,
  privateKeyFromSeed,
  rawPublicKey,
  receiptHash,
  receiptSigningInput,
  sign,
  verifyReceipt,
  type Ed25519Jwk,
  type Receipt,
  type UnsignedReceipt,
} from '../../src/index.js';
import { agree, hexBytes } from './agree.js';
import type { RecordVectors } from './records.js';
import { RFC8032_ED25519 } from './rfc.js';

export type ReceiptVectors = { service: { seed_hex: string; jwk: Ed25519Jwk }; receipt: Receipt };
export type ReceiptInvalidVector = { name: string; receipt: Receipt; jwks: { keys: Ed25519Jwk[] }; error: string; why: string };

export const SERVICE_SEED = RFC8032_ED25519[1].seed;
const OTHER_SEED = RFC8032_ED25519[2].seed;

function signed(unsigned: UnsignedReceipt, seedHex: string, kid: string): Receipt {
  return finishReceipt(unsigned, kid, sign(privateKeyFromSeed(hexBytes(seedHex)), receiptSigningInput(receiptHash(unsigned))));
}

function jwkOf(seedHex: string): Ed25519Jwk {
  return ed25519Jwk(rawPublicKey(privateKeyFromSeed(hexBytes(seedHex))));
}

export function receiptVectors(records: RecordVectors): ReceiptVectors {
  const first = records.records[0]!;
  // Members in the order of RFC 7638's canonical form first (as the file has always listed them).
  const { crv, kty, x, kid, alg, use } = jwkOf(SERVICE_SEED);
  const jwk: Ed25519Jwk = { crv, kty, x, kid, alg, use };
  const unsigned: UnsignedReceipt = {
    receipt_version: '1.0',
    receipt_id: '01900000-0000-7000-8000-0000000000aa',
    operation_id: first.record.operation_id,
    org_id: first.record.org_id,
    agent_id: first.record.agent_id,
    server_received_at: 1767225600123,
    seq_no: first.seq_no,
    chain_hash: first.chain_hash,
    queue_message_id: '5f1d8c1e-0b6a-4c1b-9a63-3c2f6c4b1e01',
  };
  const receipt = signed(unsigned, SERVICE_SEED, jwk.kid);
  agree('the receipt verifies against its JWKS', verifyReceipt(receipt, { keys: [jwk] }), true);
  return { service: { seed_hex: SERVICE_SEED, jwk }, receipt };
}

export function receiptInvalidVectors(valid: ReceiptVectors): ReceiptInvalidVector[] {
  const { receipt } = valid;
  const service = valid.service.jwk;
  const other = jwkOf(OTHER_SEED);
  const sig = Buffer.from(receipt.service_signature, 'base64url');
  sig[40] = (sig[40] as number) ^ 0x10;
  const jwks = { keys: [service] };
  const out: ReceiptInvalidVector[] = [
    { name: 'signed by another key under the service kid', receipt: signed(receipt, OTHER_SEED, service.kid), jwks, error: 'signature', why: 'the signature is not the service key\'s' },
    { name: 'bit flipped in the signature', receipt: { ...receipt, service_signature: b64uEncode(sig) }, jwks, error: 'signature', why: 'the signature does not verify' },
    { name: 'seq_no changed after signing', receipt: { ...receipt, seq_no: 2 }, jwks, error: 'receipt_hash', why: 'receipt_hash is not the hash of the receipt\'s members' },
    {
      name: 'seq_no and receipt_hash changed after signing',
      receipt: { ...receipt, seq_no: 2, receipt_hash: receiptHash({ ...receipt, seq_no: 2 }) },
      jwks,
      error: 'signature',
      why: 'the signature covers the old receipt_hash',
    },
    { name: 'kid not in the JWKS', receipt: signed(receipt, OTHER_SEED, other.kid), jwks, error: 'unknown_kid', why: 'no JWKS key has the receipt\'s service_kid' },
    {
      name: 'JWKS entry labelled with a kid that is not its thumbprint',
      receipt: signed(receipt, OTHER_SEED, service.kid),
      jwks: { keys: [{ ...other, kid: service.kid }] },
      error: 'kid_not_thumbprint',
      why: 'a kid must be the RFC 7638 thumbprint of its key, so a mislabelled entry cannot vouch for another key',
    },
  ];
  for (const v of out) agree(`receipt-invalid "${v.name}" is refused`, verifyReceipt(v.receipt, v.jwks), false);
  return out;
}
