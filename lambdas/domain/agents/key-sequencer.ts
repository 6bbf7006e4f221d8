/**
 * Chains the key changes waiting in an organization's key history (store/key-log.ts): reads
 * the head and the oldest pending items, numbers their drafts from the head
 * (chainKeyEvents, docs/PROTOCOL.md "Key events") and commits the events, the head and the
 * deletion of those items in one transaction. Concurrent key changes thus share one append:
 * a key change only adds its own pending item, contending with nobody, and whichever
 * sequencer runs next chains every change waiting, up to a transaction's worth. Sequencers of
 * several processes race on the head's condition; the loser reads again and finds less (or
 * nothing) left to chain.
 *
 * Within a process the sequencer runs of an organization are coalesced (the local stack serves
 * every request in one process): a caller that finds a run going joins the one run queued
 * after it, which all such callers share, so a burst of two hundred changes makes a few runs,
 * not two hundred.
 */
import { GENESIS_KEY_EVENT, chainKeyEvents, keyEventHash } from '@agent-ledger/protocol';
import { MAX_TRANSACTION_ITEMS, transact } from '../../store/dynamo.js';
import { keyLogChainItems, readKeyLogHead, readPendingKeyEvents, type PendingKeyEvents } from '../../store/key-log.js';

/** Pending items read per round: more than a transaction of single-key changes can chain. */
const READ_PER_ROUND = 64;

interface Runs {
  running?: Promise<boolean>;
  queued?: Promise<boolean>;
}

const runsByOrg = new Map<string, Runs>();

/**
 * Chains every change that was waiting when it was called (and any that joined them); false
 * when `deadline` (epoch ms) came first. A run that started before the call may have missed a
 * change committed just before it, so the caller waits for a run that starts after the call.
 */
export async function chainPendingKeyEvents(orgId: string, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([nextRun(orgId, deadline), late]);
  } finally {
    clearTimeout(timer);
  }
}

function nextRun(orgId: string, deadline: number): Promise<boolean> {
  let runs = runsByOrg.get(orgId);
  if (runs === undefined) {
    runs = {};
    runsByOrg.set(orgId, runs);
  }
  const state = runs;
  if (state.running === undefined) return begin(orgId, state, deadline);
  const after = () => {
    state.queued = undefined;
    return begin(orgId, state, deadline);
  };
  state.queued ??= state.running.then(after, after);
  return state.queued;
}

function begin(orgId: string, state: Runs, deadline: number): Promise<boolean> {
  const run = chainAll(orgId, deadline).finally(() => {
    if (state.running !== run) return;
    state.running = undefined;
    if (state.queued === undefined) runsByOrg.delete(orgId);
  });
  state.running = run;
  return run;
}

/** Rounds until nothing waits; false at `deadline`. */
async function chainAll(orgId: string, deadline: number): Promise<boolean> {
  for (let round = 1; Date.now() < deadline; round++) {
    const pending = await readPendingKeyEvents(orgId, READ_PER_ROUND);
    if (pending.length === 0) return true;
    if (await chainRound(orgId, pending)) continue;
    // Another process's sequencer moved the head first: a short, jittered wait, then read again.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20 * round, 200)));
  }
  return false;
}

/** One append of the oldest waiting changes that fit a transaction; false when the head moved meanwhile. */
async function chainRound(orgId: string, waiting: readonly PendingKeyEvents[]): Promise<boolean> {
  const read = await readKeyLogHead(orgId);
  const batch: PendingKeyEvents[] = [];
  let items = 1; // the head
  for (const p of waiting) {
    const needs = p.drafts.length + 1; // its events and its deletion
    if (items + needs > MAX_TRANSACTION_ITEMS) break;
    batch.push(p);
    items += needs;
  }
  const events = chainKeyEvents(orgId, read?.size ?? 0, read?.head ?? GENESIS_KEY_EVENT, batch.flatMap((p) => p.drafts));
  const last = events[events.length - 1];
  if (last === undefined) return true;
  const result = await transact(keyLogChainItems(orgId, read?.size, batch, events, keyEventHash(last), Date.now()));
  return result.committed;
}
