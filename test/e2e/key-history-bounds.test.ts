/**
 * The key history's bounds (docs/API.md §8 "new agent keys per member"): every registration
 * and key addition appends to the organization's one key history, which every export carries
 * (docs/EXPORT.md "Key history"). One member's script may register only so many new keys a
 * day; concurrent registrations cannot pass the quota together; retiring, revoking and
 * deleting keys are never refused; another member of the organization has a quota of their own.
 * (An honest burst under the default quota: agent-key-history.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GENESIS_KEY_EVENT, keyEventHash } from '@agent-ledger/protocol';
import { listKeyEvents } from '../../lambdas/store/key-log.js';
import type { Api } from '../support/http-client.js';
import { keyBody, newKey, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const QUOTA = 30;
const stack = useLedgerStack({ env: { LEDGER_NEW_KEYS_PER_MEMBER_PER_DAY: String(QUOTA) } });
let orgId: string;
let owner: Api;
let admin: Api;

beforeAll(async () => {
  ({ orgId, api: { org_owner: owner, security_admin: admin } } = await stack.org('org_owner', 'security_admin'));
});

const register = (api: Api, agentId: string, keys: number) =>
  api('POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: Array.from({ length: keys }, (_, i) => keyBody(newKey(`k${i}`), orgId, agentId)) });

describe('new agent keys per member and day', () => {
  it('a burst of registrations takes the quota exactly: what is over it is RATE_LIMITED with Retry-After and writes nothing', { timeout: 120_000 }, async () => {
    // 20 registrations of 2 keys each want 40 of the 30 slots: exactly 15 fit.
    const ids = Array.from({ length: 20 }, () => uniqueAgentId('quota'));
    const answers = await Promise.all(ids.map((id) => register(owner, id, 2)));
    const ok = ids.filter((_, i) => answers[i]!.status === 200);
    const refused = answers.filter((res) => res.status !== 200);
    expect(ok).toHaveLength(15);
    for (const res of refused) {
      expect(`${res.status} ${res.body.error.code}`).toBe('429 RATE_LIMITED');
      expect(res.body.error.message).toMatch(/new agent keys for today/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
    }
    const events = await listKeyEvents(orgId);
    expect(events.filter((e) => e.event === 'register')).toHaveLength(30);
    for (const id of ids.filter((id) => !ok.includes(id))) {
      expect((await owner('GET', `/v1/agents/${id}`)).status).toBe(404);
    }
    // A key addition is a new key too.
    const added = await owner('POST', `/v1/agents/${ok[0]}/keys`, keyBody(newKey('k-more'), orgId, ok[0]!));
    expect(`${added.status} ${added.body.error?.code}`).toBe('429 RATE_LIMITED');

    // Ending keys is never refused: retire, revoke and delete go through with the quota spent.
    expect((await owner('POST', `/v1/agents/${ok[0]}/keys/k0/retire`, { reason: 'rotated' })).status).toBe(200);
    expect((await owner('POST', `/v1/agents/${ok[1]}/revoke`, { reason: 'laptop lost' })).status).toBe(200);
    expect((await owner('DELETE', `/v1/agents/${ok[2]}`)).status).toBe(200);

    // The quota is the member's: another member of the organization has their own.
    const theirs = uniqueAgentId('quota-admin');
    expect((await register(admin, theirs, 3)).status).toBe(200);

    const all = await listKeyEvents(orgId);
    all.forEach((e, i) => {
      expect(e.key_index).toBe(i);
      expect(e.prev_event_hash).toBe(i === 0 ? GENESIS_KEY_EVENT : keyEventHash(all[i - 1]!));
    });
  });
});
