/**
 * The organization's rule for a new key's proof of possession (docs/API.md §2.7
 * `require_key_proof`, §4.3). Off (the default, and /v1's original behaviour), a key may be
 * registered without one: it is stored unproven and its key event records `proof: null`. On,
 * a key without one is VALIDATION_ERROR 400 naming its field. A proof that is given is checked
 * either way (key-log.ts assertPossession).
 */
import { getOrg, orgAllowsUnprovenKeys } from '../../store/orgs.js';
import type { TransactItem } from '../../store/dynamo.js';
import { LedgerError } from '../../shared/errors.js';

/** Whether the organization requires every new key's proof of possession. */
export async function keyProofRequired(orgId: string): Promise<boolean> {
  return (await getOrg(orgId))?.require_key_proof === true;
}

/**
 * Refuse, when the organization requires proofs, the first key without one (VALIDATION_ERROR,
 * naming `fieldOf(index)`).
 *
 * @example
 * assertProofsGiven(await keyProofRequired(orgId), input.keys, (i) => `body.keys[${i}].proof`);
 */
export function assertProofsGiven(required: boolean, keys: readonly { proof?: unknown }[], fieldOf: (index: number) => string): void {
  if (!required) return;
  const index = keys.findIndex((key) => key.proof === undefined);
  if (index >= 0) {
    throw new LedgerError('VALIDATION_ERROR', `${fieldOf(index)}: this organization requires each new key's proof of possession (require_key_proof; docs/PROTOCOL.md "Proof of possession")`);
  }
}

/**
 * What the transaction storing `keys` adds when one of them is unproven: the condition that
 * the organization still allows that. Should the setting be switched on meanwhile, the
 * transaction fails, the change runs again (as when the key history moved) and reads the
 * setting anew, so no unproven key is stored once the setting is on.
 */
export function unprovenKeysGuard(orgId: string, keys: readonly { proof?: unknown }[]): TransactItem[] {
  return keys.some((key) => key.proof === undefined) ? [orgAllowsUnprovenKeys(orgId)] : [];
}
