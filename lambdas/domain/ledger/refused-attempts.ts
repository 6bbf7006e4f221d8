/**
 * Refused attempts (docs/API.md §4.3 "Refused attempts"): a submission refused for the agent's
 * or the key's standing is what an incident responder needs most (what did the frozen agent
 * try next?), so the record is kept in the agent's attempts log (store/attempts.ts) when:
 *
 * - the refusal is final: submit-operation.ts calls this only for a refusal found on state
 *   read from the table, never on its cached head;
 * - its code is one of STANDING_CODES (shared/errors.ts): the submission was well formed and named a known key,
 *   only who sent it may no longer write;
 * - the record's payload hash and signature verify with the agent's stored key of that kid
 *   (record-checks.ts checkIntegrity, docs/PROTOCOL.md step 5), so only what the agent's key
 *   really signed is shown as the agent's attempt; anyone else's bytes keep nothing;
 * - the day's bounds have room: LEDGER_ATTEMPTS_PER_AGENT_PER_DAY and
 *   LEDGER_ATTEMPTS_PER_ORG_PER_DAY, each one conditional counter write (rate-counters.ts
 *   reserve), so a frozen agent in a loop cannot grow the table without bound.
 *
 * Keeping is a side note to the refusal: it never changes the answer, and a failed write is
 * logged and dropped (the client gets its refusal, not a 500).
 */
import { canonicalize } from '@agent-ledger/protocol';
import { config } from '../../config.js';
import { logger } from '../../logger.js';
import { MetricNames, MetricUnit, recordMetrics } from '../../metrics.js';
import { noteAttempt } from '../../store/agents.js';
import { putAttempt, type AttemptItem } from '../../store/attempts.js';
import type { AgentItem, AgentKeyItem } from '../../store/ledger-items.js';
import { counterKeys, release, reserve, type CounterKey } from '../../store/rate-counters.js';
import { isStandingCode, LedgerError, type StandingCode } from '../../shared/errors.js';
import { DAY_MS, windowAt } from '../rate-limit/fixed-window.js';
import type { PreparedRecord } from './prepared-record.js';
import { checkIntegrity } from './record-checks.js';

/** How long an attempt is kept (docs/API.md §4.3 "Refused attempts"). */
export const ATTEMPT_RETENTION_DAYS = 90;


interface Refusal {
  code: StandingCode;
  message: string;
}

function verifies(prepared: PreparedRecord, key: AgentKeyItem): boolean {
  try {
    checkIntegrity(prepared, key);
    return true;
  } catch {
    return false;
  }
}

/** The agent's and the organization's slots of the day, both or neither. */
async function reserveSlots(orgId: string, agentId: string, now: number): Promise<CounterKey[] | null> {
  const window = windowAt(now, DAY_MS);
  const { attemptsPerAgentPerDay, attemptsPerOrgPerDay } = config();
  const agentKey = counterKeys.agentAttempts(orgId, agentId, window.start);
  if (!(await reserve(agentKey, 'attempts', attemptsPerAgentPerDay, window.expiresAtS))) return null;
  const orgKey = counterKeys.orgAttempts(orgId, window.start);
  if (await reserve(orgKey, 'attempts', attemptsPerOrgPerDay, window.expiresAtS)) return [agentKey, orgKey];
  await release(agentKey, 'attempts');
  return null;
}

function attemptOf(prepared: PreparedRecord, kid: string, refusal: Refusal, receivedAt: number): AttemptItem {
  const { payload: _payload, ...signed } = prepared.record;
  const inline = prepared.payloadBytes.byteLength <= config().inlinePayloadBytes;
  return {
    operation_id: prepared.record.operation_id,
    org_id: prepared.record.org_id,
    agent_id: prepared.record.agent_id,
    kid,
    refused_code: refusal.code,
    refused_message: refusal.message,
    received_at: receivedAt,
    record_json: canonicalize(signed),
    payload_hash: prepared.record.payload_hash,
    ...(inline ? { payload_json: new TextDecoder().decode(prepared.payloadBytes) } : {}),
  };
}

async function keep(prepared: PreparedRecord, agent: AgentItem, key: AgentKeyItem, refusal: Refusal, receivedAt: number): Promise<void> {
  const { org_id: orgId, agent_id: agentId } = agent;
  const slots = await reserveSlots(orgId, agentId, receivedAt);
  if (!slots) {
    logger.info('refused attempt not kept: the day is full', { agent_id: agentId, operation_id: prepared.record.operation_id });
    return;
  }
  const expiresAtS = Math.ceil((receivedAt + ATTEMPT_RETENTION_DAYS * DAY_MS) / 1000);
  const giveBack = () => Promise.all(slots.map((slot) => release(slot, 'attempts')));
  // Kept already (the same operation_id sent again), or not written: its slots go back.
  const kept = await putAttempt(attemptOf(prepared, key.kid, refusal, receivedAt), expiresAtS).catch(async (error: unknown) => {
    await giveBack();
    throw error;
  });
  if (!kept) {
    await giveBack();
    return;
  }
  await noteAttempt(orgId, agentId, receivedAt);
  recordMetrics([{ name: MetricNames.AttemptsKept, unit: MetricUnit.Count, value: 1 }]);
}

/**
 * Keeps the refused submission when it qualifies (see the module comment). Never throws, so
 * the caller can await it and then throw `refusal` unchanged.
 */
export async function keepRefusedAttempt(
  prepared: PreparedRecord,
  state: { agent: AgentItem | null; key: AgentKeyItem | null },
  refusal: unknown,
  receivedAt: number,
): Promise<void> {
  const { agent, key } = state;
  if (!(refusal instanceof LedgerError) || !agent || !key) return;
  const { code, message } = refusal;
  if (!isStandingCode(code) || !verifies(prepared, key)) return;
  try {
    await keep(prepared, agent, key, { code, message }, receivedAt);
  } catch (error) {
    logger.error('refused attempt not kept', { agent_id: agent.agent_id, operation_id: prepared.record.operation_id, error: error instanceof Error ? error : String(error) });
  }
}
