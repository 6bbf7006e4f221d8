/**
 * An audit page is bounded by bytes as well as by rows (docs/API.md §4.6, "Page size"): 50
 * operations submitted over HTTP, each with a 32 KiB subject and a 32 KiB action (canonical
 * JSON, the contract's limit) full of quotes, which the answer escapes twice over, would make
 * a 6.5 MB page, larger than a Lambda response may be (the local server refuses such a
 * response as Lambda does). Pages stop at the budget, and following their cursors returns
 * every operation exactly once, in order, whole.
 */
import { canonicalize } from '@agent-ledger/protocol';
import { beforeAll, expect, it } from 'vitest';
import { PAGE_BYTE_BUDGET } from '../../lambdas/domain/audit/page-budget.js';
import { MAX_LAMBDA_RESPONSE_BYTES } from '../../local/http-server.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '100000' } });
const OPERATIONS = 50;
const MAX_FIELD_BYTES = 32 * 1024;
let auditorToken: string;
const submitted: { operation_id: string; subject: string; action: string }[] = [];

/** An object whose canonical JSON is `bytes` long or one byte less: one member of quotes, each escaped as \" (two bytes). */
function quotes(member: string, bytes: number): Record<string, string> {
  const frame = canonicalize({ [member]: '' }).length;
  return { [member]: '"'.repeat(Math.floor((bytes - frame) / 2)) };
}

beforeAll(async () => {
  const org = await stack.org('org_owner', 'compliance_auditor');
  auditorToken = org.users.compliance_auditor.token;
  const agent = { agentId: uniqueAgentId('bytes'), key: newKey() };
  await registerAgent(org.api.org_owner, agent.agentId, [agent.key]);
  const chain = new ClientChain(org.orgId, agent.agentId, agent.key);
  for (let i = 0; i < OPERATIONS; i++) {
    const subject = { ...quotes('q', MAX_FIELD_BYTES - 16), n: i };
    const action = quotes('verb', MAX_FIELD_BYTES);
    const { record, res } = await chain.submit(org.api.org_owner, { fields: { subject, action } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(canonicalize(record.subject).length).toBeLessThanOrEqual(MAX_FIELD_BYTES);
    expect(canonicalize(record.action).length).toBeGreaterThan(MAX_FIELD_BYTES - 2);
    submitted.push({ operation_id: record.operation_id, subject: canonicalize(record.subject), action: canonicalize(record.action) });
  }
}, 120_000);

it('50 operations of 32 KiB quoted subjects and actions: every page within the budget, the cursors return each operation once, whole', async () => {
  const returned: { operation_id: string; subject: string; action: string }[] = [];
  const pageSizes: number[] = [];
  let cursor: string | undefined;
  do {
    const res = await stack.call('POST', '/v1/audit/query', { token: auditorToken, body: { limit: 500, ...(cursor ? { cursor } : {}) } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    // What the client receives, and what Lambda would carry: the body as an escaped string.
    expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(PAGE_BYTE_BUDGET + 4096);
    expect(Buffer.byteLength(JSON.stringify(res.text))).toBeLessThan(MAX_LAMBDA_RESPONSE_BYTES);
    expect(res.json.total_count).toBe(OPERATIONS);
    returned.push(...res.json.operations);
    pageSizes.push(res.json.operations.length);
    cursor = res.json.cursor;
    expect(pageSizes.length).toBeLessThanOrEqual(OPERATIONS);
  } while (cursor);
  // The budget cut the listing into several pages, none of them empty.
  expect(pageSizes.length).toBeGreaterThan(1);
  expect(pageSizes.every((size) => size > 0)).toBe(true);
  expect(returned.map((op) => op.operation_id)).toEqual(submitted.map((op) => op.operation_id));
  expect(returned.map(({ operation_id, subject, action }) => ({ operation_id, subject, action }))).toEqual(submitted);
});

it('a page the row limit ends before the budget keeps the limit', async () => {
  const res = await stack.call('POST', '/v1/audit/query', { token: auditorToken, body: { limit: 3 } });
  expect(res.status).toBe(200);
  expect(res.json.operations.map((op: { operation_id: string }) => op.operation_id)).toEqual(submitted.slice(0, 3).map((op) => op.operation_id));
  expect(typeof res.json.cursor).toBe('string');
});
