// An organization's key changes in one process take turns at its key history's head, against
// DynamoDB Local (lambdas/domain/agents/key-log.ts `keyLogChange`): each change appends after
// the head the change before it handed over, without reading it again, and the head's
// condition catches a hand-over made stale by another process. A change whose turn does not
// come within its budget (25 s, the route's 29 s timeout less the last attempt's) is a 409
// that appended nothing.
import { randomBytes, randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { GENESIS_KEY_EVENT, chainKeyEvents, keyEventHash, type KeyEventDraft } from '@agent-ledger/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keyLogChange } from '../../lambdas/domain/agents/key-log.js';
import { RETRY } from '../../lambdas/domain/agents/optimistic.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { table, transact } from '../../lambdas/store/dynamo.js';
import { keyLogAppendItems, keyLogHeadKey, listKeyEvents, readKeyLogHead } from '../../lambdas/store/key-log.js';
import { LedgerError } from '../../lambdas/shared/errors.js';
import { useLedgerStack } from '../support/ledger-stack.js';

useLedgerStack();

afterEach(() => {
  vi.useRealTimers();
});

const draft = (agentId: string): KeyEventDraft => ({
  event: 'retire',
  agent_id: agentId,
  kid: 'k1',
  key: randomBytes(32).toString('base64url'),
  time: Date.now(),
  actor: 'user-test',
  proof: null,
});

/** One key change: appends one event, counting its attempts; `afterCommit` runs before it answers. */
function change(orgId: string, agentId: string, attempts: Map<string, number>, afterCommit: () => Promise<void> = async () => {}) {
  return keyLogChange(orgId, async (append) => {
    attempts.set(agentId, (attempts.get(agentId) ?? 0) + 1);
    const { committed } = await transact(await append([draft(agentId)], Date.now()));
    if (!committed) return RETRY;
    await afterCommit();
    return agentId;
  });
}

/** What another process does: reads the head and appends after it. */
async function appendElsewhere(orgId: string, agentId: string): Promise<void> {
  const head = await readKeyLogHead(orgId);
  const events = chainKeyEvents(orgId, head?.size ?? 0, head?.head ?? GENESIS_KEY_EVENT, [draft(agentId)]);
  expect((await transact(keyLogAppendItems(orgId, head?.size, events, keyEventHash(events[0]!), Date.now()))).committed).toBe(true);
}

async function expectUnbrokenChain(orgId: string, agents: string[]): Promise<void> {
  const events = await listKeyEvents(orgId);
  expect(events.map((event) => event.agent_id)).toEqual(agents);
  events.forEach((event, i) => {
    expect(event.key_index).toBe(i);
    expect(event.prev_event_hash).toBe(i === 0 ? GENESIS_KEY_EVENT : keyEventHash(events[i - 1]!));
  });
  expect(await readKeyLogHead(orgId)).toMatchObject({ size: events.length, head: keyEventHash(events[events.length - 1]!) });
}

describe('keyLogChange', () => {
  it('twenty changes at once append in the order asked, each at its first attempt', async () => {
    const orgId = `org-${randomUUID()}`;
    const agents = Array.from({ length: 20 }, (_, i) => `agent-${i}`);
    const attempts = new Map<string, number>();
    expect(await Promise.all(agents.map((agentId) => change(orgId, agentId, attempts)))).toEqual(agents);
    expect([...attempts.values()]).toEqual(agents.map(() => 1));
    await expectUnbrokenChain(orgId, agents);
  });

  it('the next in line appends after the head handed to it, without reading the head again', async () => {
    const orgId = `org-${randomUUID()}`;
    const attempts = new Map<string, number>();
    await change(orgId, 'first', attempts);
    // The second's head changes under it after its commit (same size, another hash): a change
    // that read the head would chain after the altered hash; the third, in line, must not.
    const second = change(orgId, 'second', attempts, async () => {
      await dynamo().send(new UpdateCommand({ TableName: table(), Key: keyLogHeadKey(orgId), UpdateExpression: 'SET head = :other', ExpressionAttributeValues: { ':other': 'altered' } }));
    });
    const third = change(orgId, 'third', attempts);
    await Promise.all([second, third]);
    const events = await listKeyEvents(orgId);
    expect(events.map((event) => event.prev_event_hash)).toEqual([GENESIS_KEY_EVENT, keyEventHash(events[0]!), keyEventHash(events[1]!)]);
    expect(attempts.get('third')).toBe(1);
  });

  it('a hand-over made stale by another process fails its commit, and the change appends after a fresh read', async () => {
    const orgId = `org-${randomUUID()}`;
    const attempts = new Map<string, number>();
    const first = change(orgId, 'first', attempts, () => appendElsewhere(orgId, 'elsewhere'));
    const second = change(orgId, 'second', attempts);
    expect(await Promise.all([first, second])).toEqual(['first', 'second']);
    expect(attempts.get('second')).toBe(2);
    await expectUnbrokenChain(orgId, ['first', 'elsewhere', 'second']);
  });

  it('a change whose turn does not come within its budget (25 s) is a 409 that appended nothing', async () => {
    const orgId = `org-${randomUUID()}`;
    const attempts = new Map<string, number>();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let committedFirst!: () => void;
    const firstCommitted = new Promise<void>((resolve) => (committedFirst = resolve));
    const first = change(orgId, 'first', attempts, () => {
      committedFirst();
      return held;
    });
    await firstCommitted;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let settled = false;
    const late = change(orgId, 'late', attempts)
      .then(
        () => null,
        (error: unknown) => error,
      )
      .finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(24_900);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(101);
    const error = await late;
    vi.useRealTimers();
    expect(error).toBeInstanceOf(LedgerError);
    expect(`${(error as LedgerError).status}`).toBe('409');
    release();
    await first;
    await expectUnbrokenChain(orgId, ['first']);
  });
});
