// An organization's key changes share appends to its key history, against DynamoDB Local
// (lambdas/domain/agents/key-log.ts `keyLogChange`, key-sequencer.ts): each change commits its
// drafts as a pending item of its own, contending with no other change, and a sequencer
// chains every change waiting in one transaction. Another process's sequencer moving the
// head first costs a re-read, never a lost or doubled event; a change that follows another
// it could see gets the later index whatever the clocks say; and a change that cannot chain
// what was waiting before it within its budget (25 s) is a 409 that wrote nothing.
import { randomBytes, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { GENESIS_KEY_EVENT, chainKeyEvents, keyEventHash, type KeyEventDraft } from '@agent-ledger/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keyLogChange } from '../../lambdas/domain/agents/key-log.js';
import { chainPendingKeyEvents } from '../../lambdas/domain/agents/key-sequencer.js';
import { RETRY } from '../../lambdas/domain/agents/optimistic.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { table, transact } from '../../lambdas/store/dynamo.js';
import { keyLogChainItems, listKeyEvents, newPendingSk, pendingKeyEventsPut, readKeyLogHead, readPendingKeyEvents } from '../../lambdas/store/key-log.js';
import { LedgerError } from '../../lambdas/shared/errors.js';
import { beforeRequest } from '../support/before-request.js';
import type { Loose } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

useLedgerStack();

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const draft = (agentId: string, event: KeyEventDraft['event'] = 'retire', time = Date.now()): KeyEventDraft => ({
  event,
  agent_id: agentId,
  kid: 'k1',
  key: randomBytes(32).toString('base64url'),
  time,
  actor: 'user-test',
  proof: null,
});

/** One key change: commits one draft, counting its attempts; `afterCommit` runs before it answers. */
function change(orgId: string, agentId: string, attempts: Map<string, number>, afterCommit: () => Promise<void> = async () => {}) {
  return keyLogChange(orgId, async (append) => {
    attempts.set(agentId, (attempts.get(agentId) ?? 0) + 1);
    const { committed } = await transact(await append([draft(agentId)], Date.now()));
    if (!committed) return RETRY;
    await afterCommit();
    return agentId;
  });
}

/** What another process's sequencer does: chains the oldest waiting change after the head it reads. */
async function chainElsewhere(orgId: string): Promise<void> {
  const [oldest] = await readPendingKeyEvents(orgId, 1);
  const head = await readKeyLogHead(orgId);
  const events = chainKeyEvents(orgId, head?.size ?? 0, head?.head ?? GENESIS_KEY_EVENT, oldest!.drafts);
  expect((await transact(keyLogChainItems(orgId, head?.size, [oldest!], events, keyEventHash(events[events.length - 1]!), Date.now()))).committed).toBe(true);
}

async function expectUnbrokenChain(orgId: string, agents: string[]): Promise<void> {
  const events = await listKeyEvents(orgId);
  expect(events.map((event) => event.agent_id).sort()).toEqual([...agents].sort());
  events.forEach((event, i) => {
    expect(event.key_index).toBe(i);
    expect(event.prev_event_hash).toBe(i === 0 ? GENESIS_KEY_EVENT : keyEventHash(events[i - 1]!));
  });
  expect(await readKeyLogHead(orgId)).toMatchObject({ size: events.length, head: keyEventHash(events[events.length - 1]!) });
  expect(await readPendingKeyEvents(orgId, 10)).toEqual([]);
}

/** Counts the transactions that move the key history's head (appends). */
function countAppends(orgId: string): () => number {
  let appends = 0;
  beforeRequest(
    (command: Loose) => command.constructor?.name === 'TransactWriteCommand' && JSON.stringify(command.input).includes(`"pk":"ORG#${orgId}#KEYLOG","sk":"HEAD"`),
    async () => {
      appends += 1;
    },
  );
  return () => appends;
}

describe('keyLogChange', () => {
  it('forty changes at once each commit at their first attempt and share a few appends', async () => {
    const orgId = `org-${randomUUID()}`;
    const appends = countAppends(orgId);
    const agents = Array.from({ length: 40 }, (_, i) => `agent-${i}`);
    const attempts = new Map<string, number>();
    expect(await Promise.all(agents.map((agentId) => change(orgId, agentId, attempts)))).toEqual(agents);
    expect([...attempts.values()]).toEqual(agents.map(() => 1));
    await expectUnbrokenChain(orgId, agents);
    // One append per change would be 40; waiting changes are chained together.
    expect(appends()).toBeLessThan(20);
  });

  it("another process's sequencer moving the head first costs a re-read, never a lost or doubled event", async () => {
    const orgId = `org-${randomUUID()}`;
    const attempts = new Map<string, number>();
    // A change of another process leaves its drafts waiting; ours commits, and before our
    // sequencer appends, that process's sequencer chains its own change.
    await transact([pendingKeyEventsPut(orgId, newPendingSk('elsewhere', Date.now()), [draft('elsewhere')], Date.now())]);
    await chainElsewhere(orgId);
    await transact([pendingKeyEventsPut(orgId, newPendingSk('elsewhere-2', Date.now()), [draft('elsewhere-2')], Date.now())]);
    let raced = false;
    beforeRequest(
      (command: Loose) => command.constructor?.name === 'TransactWriteCommand' && !raced && JSON.stringify(command.input).includes('"sk":"HEAD"'),
      async () => {
        raced = true;
        await chainElsewhere(orgId);
      },
    );
    expect(await change(orgId, 'ours', attempts)).toBe('ours');
    expect(raced).toBe(true);
    await expectUnbrokenChain(orgId, ['elsewhere', 'elsewhere-2', 'ours']);
  });

  it('a change after one it could see gets the later index, even when that one waits with a later clock', async () => {
    const orgId = `org-${randomUUID()}`;
    // A registration whose process stopped after its commit, on a clock a minute ahead: its
    // pending item sorts after anything made now.
    const ahead = Date.now() + 60_000;
    await transact([pendingKeyEventsPut(orgId, newPendingSk('agent-a', ahead), [draft('agent-a', 'register', ahead)], ahead)]);
    expect(await change(orgId, 'agent-a', new Map())).toBe('agent-a');
    const events = await listKeyEvents(orgId);
    expect(events.map((e) => `${e.key_index} ${e.event}`)).toEqual(['0 register', '1 retire']);
  });

  it('the sealer chains a change its process left waiting', async () => {
    const orgId = `org-${randomUUID()}`;
    await transact([pendingKeyEventsPut(orgId, newPendingSk('left', Date.now()), [draft('left', 'register')], Date.now())]);
    expect(await readKeyLogHead(orgId)).toBeUndefined();
    expect(await chainPendingKeyEvents(orgId, Date.now() + 5000)).toBe(true);
    await expectUnbrokenChain(orgId, ['left']);
  });

  it('a change that cannot chain what waits before it within its budget (25 s) is a 409 that wrote nothing', async () => {
    const orgId = `org-${randomUUID()}`;
    // A waiting change of the same agent that can never be chained: its index is taken by an event with no head.
    await transact([pendingKeyEventsPut(orgId, newPendingSk('late', Date.now()), [draft('late')], Date.now())]);
    await dynamo().send(new PutCommand({ TableName: table(), Item: { pk: `ORG#${orgId}#KEYLOG`, sk: 'EVENT#0000000000', planted: true } }));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let settled = false;
    const late = change(orgId, 'late', new Map())
      .then(
        () => null,
        (error: unknown) => error,
      )
      .finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(24_000);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1_500);
    await vi.waitFor(() => expect(settled).toBe(true));
    const error = await late;
    vi.useRealTimers();
    expect(error).toBeInstanceOf(LedgerError);
    expect(`${(error as LedgerError).status}`).toBe('409');
    expect((await readPendingKeyEvents(orgId, 10)).map((p) => p.drafts[0]!.agent_id)).toEqual(['late']);
  });
});
