/**
 * Waits, over the API, until the organization's epochs hold at least `count` leaves
 * (`GET /v1/epochs`, docs/API.md): for tests that need their operations sealed before they look.
 */
import type { Api } from './http-client.js';

export async function waitForSealedLeaves(api: Api, count: number, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const epochs = (await api('GET', '/v1/epochs?limit=100')).body.epochs as { leaf_count: number }[];
    if (epochs.reduce((sum, epoch) => sum + epoch.leaf_count, 0) >= count) return;
    if (Date.now() > deadline) throw new Error('operations were not sealed in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
