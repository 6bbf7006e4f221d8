// The 25-webhook cap under a burst of concurrent registrations (docs/API.md §4.9): the count
// moves in the same transaction as the webhook it counts, so no interleaving of requests can
// leave more than 25. Before it did, concurrent registrations each read 24 or fewer and
// all passed (200 at once left 40).
import { describe, expect, it } from 'vitest';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1' } });
const CAP = 25;

const register = (api: Api, n: number) =>
  api('POST', '/v1/webhooks', { endpoint_url: `http://127.0.0.1:9/hook-${n}`, events: ['epoch.created'], secret: 'cap-test-secret-0123' });

async function registered(api: Api): Promise<string[]> {
  const res = await api('GET', '/v1/webhooks');
  expect(res.status).toBe(200);
  return res.body.webhooks.map((webhook: { webhook_id: string }) => webhook.webhook_id);
}

describe('the webhook cap holds under concurrency', () => {
  it('a burst of concurrent registrations near the cap leaves at most 25, and every refusal is a clear 409', { timeout: 240_000 }, async () => {
    const owner = (await stack.org('org_owner')).api.org_owner;
    // 20 one after the other, then 20 at once: each of the 20 reads 20 registered, under the
    // cap, so a count read before the write lets all of them in (40 in all).
    for (let n = 0; n < 20; n++) expect((await register(owner, n)).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => register(owner, 100 + n)));
    const created = 20 + answers.filter((res) => res.status === 201).length;
    for (const res of answers.filter((res) => res.status !== 201)) {
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error.code, JSON.stringify(res.body)).toBe('VALIDATION_ERROR');
    }
    expect(created).toBeLessThanOrEqual(CAP);
    expect(await registered(owner)).toHaveLength(created);

    // Fill what the burst left (refusals that lost a race may have left room), then one more is refused.
    for (let n = created; n < CAP; n++) expect((await register(owner, 1000 + n)).status).toBe(201);
    const over = await register(owner, 2000);
    expect(over.status).toBe(409);
    expect(over.body.error.message).toMatch(/at most 25 webhooks/);
    const ids = await registered(owner);
    expect(ids).toHaveLength(CAP);

    // A deletion frees exactly one place.
    expect((await owner('DELETE', `/v1/webhooks/${ids[0]}`)).status).toBe(200);
    expect((await register(owner, 3000)).status).toBe(201);
    expect((await register(owner, 3001)).status).toBe(409);
    expect(await registered(owner)).toHaveLength(CAP);
  });

  it("one organization's full cap leaves another's untouched", { timeout: 120_000 }, async () => {
    const full = (await stack.org('org_owner')).api.org_owner;
    const other = (await stack.org('org_owner')).api.org_owner;
    await Promise.all(Array.from({ length: CAP }, (_, n) => register(full, n)));
    for (let n = (await registered(full)).length; n < CAP; n++) await register(full, 100 + n);
    expect((await register(full, 999)).status).toBe(409);
    expect((await register(other, 1)).status).toBe(201);
  });
});
