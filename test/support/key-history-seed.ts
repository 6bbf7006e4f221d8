/**
 * Seeded history (operation-seed.ts writes operations with a created_at in the past) must agree
 * with the key history (docs/PROTOCOL.md "Key events"): a key registered now did not exist
 * then, and the verifier would rightly fail every seeded record as signed before its key's
 * registration. This moves the registration of each seeded agent's key to just before its
 * first seeded record, with a proof of possession re-signed for that time, and re-chains the
 * organization's key events from there, as if the agent had been registered then.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { GENESIS_KEY_EVENT, keyEventHash, provePossession } from '@agent-ledger/protocol';
import { config } from '../../lambdas/config.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { keyLogHeadKey, listKeyEvents, readKeyLogHead } from '../../lambdas/store/key-log.js';
import type { TestKey } from './ledger-fixtures.js';

/** Registrations of `agents`' keys that are later than `earliest` (by agent id) move to `earliest - 1`. */
export async function backdateKeyRegistrations(orgId: string, earliest: ReadonlyMap<string, { key: TestKey; at: number }>): Promise<void> {
  const events = await listKeyEvents(orgId);
  let prev = GENESIS_KEY_EVENT;
  let changed = false;
  for (const event of events) {
    const seeded = earliest.get(event.agent_id);
    if (seeded !== undefined && event.kid === seeded.key.kid && (event.event === 'register' || event.event === 'add') && event.time >= seeded.at) {
      event.time = seeded.at - 1;
      event.proof = provePossession(seeded.key.privateKey, { org_id: orgId, agent_id: event.agent_id, kid: event.kid, registered_at: event.time });
      changed = true;
    }
    if (changed) {
      event.prev_event_hash = prev;
      await dynamo().send(new PutCommand({ TableName: config().tableName, Item: { pk: `ORG#${orgId}#KEYLOG`, sk: `EVENT#${String(event.key_index).padStart(10, '0')}`, ...event } }));
    }
    prev = keyEventHash(event);
  }
  const head = await readKeyLogHead(orgId);
  if (changed && head) await dynamo().send(new PutCommand({ TableName: config().tableName, Item: { ...keyLogHeadKey(orgId), ...head, head: prev } }));
}
