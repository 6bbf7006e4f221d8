/**
 * Offline receipt verification (docs/PROTOCOL.md "Receipt" and "Operation record"): with nothing
 * but the service's JWKS, check that a receipt is the service's, and, given the record it
 * acknowledges, that it acknowledges exactly that record. Each check is reported on its own
 * so that a person (or `agent-ledger verify`) can see which one failed.
 */
import {
  chainHash,
  jwkThumbprint,
  payloadHash,
  receiptHash,
  RECEIPT_FIELDS,
  verifyReceipt as verifyReceiptSignature,
  verifyRecordSignature,
  type Jwk,
  type OperationRecord,
  type Receipt,
} from '@agent-ledger/protocol/core';

export interface Check {
  name: string;
  /** null when the check could not run (its input is absent); it then fails nothing. */
  ok: boolean | null;
  detail: string;
}

export interface Verification {
  /** True when no check failed and at least one ran. */
  valid: boolean;
  checks: Check[];
}

export interface ReceiptVerifyOptions {
  /** The record the receipt acknowledges; without it only the receipt itself is checked. */
  record?: OperationRecord;
  /** The agent's Ed25519 public key (b64u) to check the record's signature with. */
  agentPublicKey?: string;
}

/**
 * Folds checks into a verdict: valid when none failed and one ran.
 *
 * @example
 * verdict([{ name: 'receipt hash', ok: true, detail: '' }, { name: 'record', ok: null, detail: '' }]).valid; // true
 */
export function verdict(checks: Check[]): Verification {
  return { valid: checks.some((c) => c.ok === true) && checks.every((c) => c.ok !== false), checks };
}

const check = (name: string, ok: boolean | null, detail: string): Check => ({ name, ok, detail });

/**
 * Verifies a receipt against a JWKS, and optionally the record it acknowledges.
 *
 * @example
 * const jwks = JSON.parse(readFileSync('jwks.json', 'utf8'));
 * const { valid, checks } = verifyReceipt(receipt, jwks, { record, agentPublicKey });
 * for (const c of checks) console.log(c.ok ? 'ok  ' : 'FAIL', c.name, c.detail);
 */
export function verifyReceipt(receipt: Receipt, jwks: { keys: readonly Jwk[] }, options: ReceiptVerifyOptions = {}): Verification {
  const checks: Check[] = [];
  if (receipt === null || typeof receipt !== 'object') {
    return verdict([check('receipt fields', false, 'the receipt is not a JSON object')]);
  }
  const missing = RECEIPT_FIELDS.filter((field) => !(field in receipt));
  checks.push(check('receipt fields', missing.length === 0, missing.length === 0 ? 'all 12 members of docs/API.md §2.3 present' : `missing: ${missing.join(', ')}`));

  let hash: string | undefined;
  try {
    hash = receiptHash(receipt);
  } catch {
    hash = undefined;
  }
  checks.push(
    check('receipt hash', hash !== undefined && hash === receipt.receipt_hash, hash === receipt.receipt_hash ? 'receipt_hash recomputes' : 'receipt_hash does not match the receipt contents'),
  );

  const keys = Array.isArray(jwks?.keys) ? jwks.keys : [];
  const key = keys.find((k) => k && k.kid === receipt.service_kid);
  const keyIsThumbprint = key !== undefined && typeof key.crv === 'string' && typeof key.kty === 'string' && typeof key.x === 'string' && jwkThumbprint({ crv: key.crv, kty: key.kty, x: key.x }) === key.kid;
  const signed = verifyReceiptSignature(receipt, { keys });
  checks.push(
    check(
      'service signature',
      signed,
      signed
        ? `signed by service key ${receipt.service_kid}`
        : key === undefined
          ? `no key ${String(receipt.service_kid)} in the JWKS`
          : !keyIsThumbprint
            ? `JWKS key ${String(receipt.service_kid)} is not labelled with its RFC 7638 thumbprint`
            : 'service_signature does not verify with that key',
    ),
  );

  const record = options.record;
  if (record === undefined || record === null || typeof record !== 'object') {
    checks.push(check('record', null, 'no record given: the receipt was not matched to a record'));
    return verdict(checks);
  }
  const same = (['operation_id', 'org_id', 'agent_id'] as const).filter((field) => record[field] !== receipt[field]);
  checks.push(check('record identity', same.length === 0, same.length === 0 ? 'operation_id, org_id and agent_id match' : `differs: ${same.join(', ')}`));

  let chained: string | undefined;
  try {
    chained = chainHash(record.prev_chain_hash, record);
  } catch {
    chained = undefined;
  }
  checks.push(
    check('chain hash', chained !== undefined && chained === receipt.chain_hash, chained === receipt.chain_hash ? `record is seq_no ${receipt.seq_no} of the chain` : "the receipt's chain_hash is not this record's"),
  );

  if ('payload' in record) {
    let hashed: string | undefined;
    try {
      hashed = payloadHash(record.payload);
    } catch {
      hashed = undefined;
    }
    checks.push(check('payload hash', hashed === record.payload_hash, hashed === record.payload_hash ? 'payload matches payload_hash' : 'payload does not match payload_hash'));
  } else {
    checks.push(check('payload hash', null, 'payload absent (erased or not included)'));
  }

  if (options.agentPublicKey) {
    const ok = verifyRecordSignature(record, options.agentPublicKey);
    checks.push(check('agent signature', ok, ok ? `signed by agent key ${record.agent_pubkey_kid}` : "the record's signature does not verify with the agent key"));
  } else {
    checks.push(check('agent signature', null, 'no agent public key given'));
  }
  return verdict(checks);
}
