/**
 * The setup of a test file that talks to the service: one local stack (test-stack.ts) for
 * the whole file, started before its tests and stopped after them, plus the helpers most
 * files need to act on it (clients, seeded organizations and members).
 *
 * Call it once at the top level of the file; it registers the beforeAll and afterAll hooks
 * itself, so hooks the file registers after it see a running stack.
 *
 * @example
 * const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '5' } });
 * let owner: Api;
 * beforeAll(async () => { owner = (await stack.org('org_owner')).api.org_owner; });
 * it('lists agents', async () => expect((await owner('GET', '/v1/agents')).status).toBe(200));
 */
import { afterAll, beforeAll } from 'vitest';
import type { MemoryQueue } from '../../lambdas/adapters/local/memory-queue.js';
import type { Role } from '../../lambdas/shared/roles.js';
import type { Schedule } from '../../local/schedule.js';
import type { StreamPoller } from '../../local/stream-poller.js';
import { apiClient, http, type Api, type HttpResult, type RequestOptions } from './http-client.js';
import { connectToServer, testBaseUrl } from './ledger-url.js';
import { seedOrg, seedUser, type SeededUser } from './seed-identity.js';
import { startTestStack, type TestStack, type TestStackOptions } from './test-stack.js';

export interface SeededOrg<R extends Role> {
  orgId: string;
  /** One member per role asked for, each with an API token. */
  users: Record<R, SeededUser>;
  /** A client acting as each member. */
  api: Record<R, Api>;
}

export interface LedgerStack extends TestStack {
  /** JSON over HTTP as one caller (http-client.ts apiClient); without a token, anonymous. */
  api(token?: string): Api;
  /** One request with the full answer (http-client.ts http): status, headers, json, text, cookies. */
  call(method: string, path: string, options?: RequestOptions): Promise<HttpResult>;
  /** A fresh organization with one seeded member per role, written straight to the table (seed-identity.ts). */
  org<R extends Role>(...roles: R[]): Promise<SeededOrg<R>>;
}

/** `options` may be a function, read when the stack starts (for values another beforeAll makes, such as a TSA's URL). */
export function useLedgerStack(options: TestStackOptions | (() => TestStackOptions) = {}): LedgerStack {
  let started: TestStack | undefined;
  beforeAll(async () => {
    const resolved = typeof options === 'function' ? options() : options;
    // URL mode (ledger-url.ts): the server already running at LEDGER_TEST_BASE_URL.
    const url = testBaseUrl();
    started = url ? connectToServer(url, resolved) : await startTestStack(resolved);
  });
  afterAll(() => started?.stop());

  const current = (): TestStack => {
    if (!started) throw new Error('the ledger stack starts in beforeAll: use it inside hooks and tests');
    return started;
  };
  return {
    get baseUrl(): string {
      return current().baseUrl;
    },
    get tableName(): string {
      return current().tableName;
    },
    get dataBucket(): string {
      return current().dataBucket;
    },
    get anchorsBucket(): string {
      return current().anchorsBucket;
    },
    get dynamoEndpoint(): string {
      return current().dynamoEndpoint;
    },
    get s3Endpoint(): string {
      return current().s3Endpoint;
    },
    get queue(): MemoryQueue {
      return current().queue;
    },
    get stream(): StreamPoller {
      return current().stream;
    },
    get schedule(): Schedule {
      return current().schedule;
    },
    stop: () => current().stop(),
    api: (token) => apiClient(current().baseUrl, token),
    call: (method, path, options) => http(current().baseUrl, method, path, options),
    async org<R extends Role>(...roles: R[]): Promise<SeededOrg<R>> {
      const orgId = await seedOrg();
      const seeded = await Promise.all(roles.map(async (role) => [role, await seedUser(orgId, role)] as const));
      const users = Object.fromEntries(seeded) as Record<R, SeededUser>;
      const api = Object.fromEntries(seeded.map(([role, user]) => [role, apiClient(current().baseUrl, user.token)])) as Record<R, Api>;
      return { orgId, users, api };
    },
  };
}
