/**
 * POST /v1/operations/:operation_id/verify (docs/API.md §4.5, docs/PROTOCOL.md "Verify endpoint"):
 * recomputes each check from stored data only and answers {valid, checks}; valid is the AND
 * of the checks present.
 *
 * Merkle evidence: `merkle` (and `proof`) join the answer only once an
 * epoch covers the operation. The sealer's lookup goes into `verifyOperation` next to the
 * other evidence loads, its result into `checks.merkle` and `proof`; `valid` already ANDs
 * every check present.
 */
import { readKey } from '../../store/agents.js';
import { readOperation } from '../../store/operations.js';
import type { OperationItem } from '../../store/ledger-items.js';
import type { InclusionProof } from '@agent-ledger/protocol';
import type { OrgCaller } from '../auth/caller.js';
import { merkleEvidence } from '../epochs/inclusion.js';
import { findVisibleOperation } from './find-operation.js';
import type { Ports } from '../ports.js';
import { loadEvidence } from './operation-evidence.js';
import { chainCheck, receiptCheck, signatureCheck } from './verify-checks.js';

interface VerifyChecks {
  signature: boolean;
  chain: boolean;
  receipt: boolean;
  merkle?: boolean;
}

interface VerifyResult {
  valid: boolean;
  checks: VerifyChecks;
  /** docs/PROTOCOL.md inclusion proof, once an epoch covers the operation. */
  proof?: InclusionProof;
}

async function previousRow(row: OperationItem): Promise<OperationItem | null> {
  return row.prev_operation_id ? readOperation(row.org_id, row.prev_operation_id) : null;
}

export async function verifyOperation(ports: Pick<Ports, 'signer'>, caller: OrgCaller, operationId: string): Promise<VerifyResult> {
  const row = await findVisibleOperation(caller, operationId);
  const [key, { payload, receipt }, previous, jwks, merkle] = await Promise.all([
    readKey(row.org_id, row.agent_id, row.agent_pubkey_kid),
    loadEvidence(row),
    previousRow(row),
    ports.signer.jwks(),
    merkleEvidence(row),
  ]);
  const checks: VerifyChecks = {
    signature: signatureCheck(row, key?.public_key ?? null, payload),
    chain: chainCheck(row, previous),
    receipt: receiptCheck(row, receipt, jwks),
    ...(merkle ? { merkle: merkle.merkle } : {}),
  };
  return { valid: Object.values(checks).every(Boolean), checks, ...(merkle?.proof ? { proof: merkle.proof } : {}) };
}
