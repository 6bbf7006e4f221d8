/**
 * `agent-ledger export` against a small local HTTP server playing the export routes of
 * docs/API.md §4.8 (POST /v1/exports, GET /v1/exports/:id with progress, GET .../download
 * answering 302 to a presigned object-store URL). The end-to-end test against the service
 * waits for those routes.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHomes } from './support/cli.js';

const homes = tempHomes('export');
const servers: Server[] = [];
const requests: Array<{ method: string; url: string; authorization?: string; body: string }> = [];
const EXPORT = '{"format":"agent-ledger-export","operations":[]}\n';
let polls = 0;
let failNext = false;

async function listen(handler: (req: IncomingMessage, body: string) => { status: number; headers?: Record<string, string>; body?: string }): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), body });
      const answer = handler(req, body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const job = (status: string, done: number) => ({ export_id: 'exp-1', org_id: 'org', status, query_params: '{}', store_export_key: null, created_at: 1, completed_at: null, progress: { operations_done: done, operations_total: 3 } });

beforeAll(async () => {
  const store = await listen(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: EXPORT }));
  const service = await listen((req) => {
    if (req.method === 'POST' && req.url === '/v1/exports') {
      polls = 0;
      return { status: 201, body: JSON.stringify({ export: job('queued', 0) }) };
    }
    if (req.url === '/v1/exports/exp-1') {
      polls += 1;
      if (failNext) return { status: 200, body: JSON.stringify({ export: { ...job('failed', 1), error: 'the object store refused the upload' } }) };
      return { status: 200, body: JSON.stringify(polls < 3 ? { export: job('running', polls) } : { export: job('done', 3), download_url: '/v1/exports/exp-1/download' }) };
    }
    if (req.url === '/v1/exports/exp-1/download') return { status: 302, headers: { location: `${store}/exports/exp-1.json?X-Amz-Signature=abc` } };
    return { status: 404, body: JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no route', request_id: 'r' } }) };
  });
  mkdirSync(homes.ledgerHome, { recursive: true });
  writeFileSync(join(homes.ledgerHome, 'credentials'), JSON.stringify({ url: service, token: 'secret-token' }), { mode: 0o600 });
});
afterAll(() => {
  for (const server of servers) server.close();
});

describe('agent-ledger export', () => {
  it('creates the export, reports progress, follows the redirect without the token, and writes the file', async () => {
    const out = join(homes.root, 'out.json');
    const run = await runCli(['export', '--from', '2026-01-01', '--to', '2026-02-01T00:00:00Z', '--format', 'json', '--out', out], { env: homes.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${out}\n`);
    expect(readFileSync(out, 'utf8')).toBe(EXPORT);
    expect(run.stderr).toMatch(/export exp-1 created \(json, 2026-01-01T00:00:00\.000Z to 2026-02-01T00:00:00\.000Z\)/);
    expect(run.stderr).toMatch(/export exp-1: running 1\/3 operations\n.*running 2\/3 operations\n.*done 3\/3 operations/);
    const create = requests.find((r) => r.method === 'POST')!;
    expect(JSON.parse(create.body)).toEqual({ start_time: Date.parse('2026-01-01'), end_time: Date.parse('2026-02-01T00:00:00Z'), format: 'json' });
    expect(create.authorization).toBe('Bearer secret-token');
    const download = requests.find((r) => r.url.startsWith('/exports/exp-1.json'))!;
    expect(download.authorization).toBeUndefined();
  });

  it('a failed export and bad dates get clear messages', async () => {
    failNext = true;
    try {
      const failed = await runCli(['export', '--from', '1767225600000', '--to', '1769904000000', '--format', 'pdf'], { env: homes.env });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/export exp-1 failed: the object store refused the upload/);
    } finally {
      failNext = false;
    }
    const backwards = await runCli(['export', '--from', '2026-02-01', '--to', '2026-01-01', '--format', 'json'], { env: homes.env });
    expect([backwards.code, backwards.stderr]).toEqual([2, expect.stringMatching(/--to must be after --from/)]);
    const garbled = await runCli(['export', '--from', 'yesterday', '--to', '2026-01-01'], { env: homes.env });
    expect(garbled.stderr).toMatch(/--from must be Unix milliseconds or an ISO 8601 date/);
    const format = await runCli(['export', '--from', '2026-01-01', '--to', '2026-01-02', '--format', 'csv'], { env: homes.env });
    expect(format.stderr).toMatch(/--format must be one of json, pdf \(got "csv"\)/);
  });
});
