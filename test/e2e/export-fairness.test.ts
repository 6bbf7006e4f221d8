/**
 * Export starvation (create-export.ts, store/exports.ts, the in-process queue's turns): one
 * organization queued 150 exports and delayed another's single export from 1 s to 50 s.
 * Now an organization may have at most 5 exports queued or running, counted in the
 * transaction that creates one (RATE_LIMITED 429 beyond, under any concurrency), the slot
 * comes back when an export ends, and organizations take turns on the exports queue.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/http-client.js';
import { exportWhenDone } from '../support/export-flow.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '100000' } });
let orgA: Api;
let orgB: Api;
const end = Date.now();
const body = { start_time: end - 3_600_000, end_time: end, format: 'json', include_payloads: false };

beforeAll(async () => {
  orgA = stack.api((await seedUser(await seedOrg('Busy'), 'org_owner')).token);
  orgB = stack.api((await seedUser(await seedOrg('Patient'), 'org_owner')).token);
});

describe('exports per organization', () => {
  it('20 concurrent creations by one organization: exactly 5 are queued, the rest RATE_LIMITED; B is not held up', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => orgA('POST', '/v1/exports', body)));
    const created = answers.filter((res) => res.status === 201);
    const limited = answers.filter((res) => res.status === 429);
    expect(created).toHaveLength(5);
    expect(limited).toHaveLength(15);
    expect(limited[0]!.body.error.code).toBe('RATE_LIMITED');
    expect(limited[0]!.body.error.message).toMatch(/already has 5 exports queued or running/);

    // Organization B's single export, created behind A's backlog, is handed out before A's later ones.
    const b = await orgB('POST', '/v1/exports', body);
    expect(b.status, JSON.stringify(b.body)).toBe(201);
    const bDone = (await exportWhenDone(orgB, b.body.export.export_id, 120_000)).export.completed_at as number;
    const aDone = await Promise.all(created.map(async (res) => (await exportWhenDone(orgA, res.body.export.export_id, 120_000)).export.completed_at as number));
    // At most 2 run at once and A's first two were already taken: B is handed out third. In
    // send order it was sixth, behind all five of A's (a slow run of B may let a third A finish first).
    expect(aDone.filter((at) => at < bDone).length).toBeLessThanOrEqual(3);

    // Their slots came back as they ended.
    const again = await orgA('POST', '/v1/exports', body);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    await exportWhenDone(orgA, again.body.export.export_id, 120_000);
  }, 400_000);
});
