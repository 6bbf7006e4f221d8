/**
 * The console on the local stack (local/console-assets.ts): every GET outside the API's
 * prefixes is the console (its files, or the page for client-side routes), with the security
 * headers and cache rules CloudFront applies too (console/serving.ts); the API keeps its paths.
 */
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type LocalHttpServer } from '../../local/http-server.js';
import { useLedgerStack } from '../support/ledger-stack.js';

useLedgerStack(); // the handlers' environment, for the API paths
let built: LocalHttpServer;
let unbuilt: LocalHttpServer;

beforeAll(async () => {
  const parent = await mkdtemp(join(tmpdir(), 'console-dist-'));
  const dist = join(parent, 'dist');
  await mkdir(join(dist, 'assets'), { recursive: true });
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>console</title>');
  await writeFile(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  await writeFile(join(parent, 'outside-console.txt'), 'secret');
  built = await startHttpServer({ consoleDir: dist });
  unbuilt = await startHttpServer({ consoleDir: join(dist, 'missing') });
});
afterAll(async () => {
  await Promise.all([built?.close(), unbuilt?.close()]);
});

describe('the console on the API origin', () => {
  it('serves the page at / and at client-side routes, never cached, under a strict CSP', async () => {
    for (const path of ['/', '/agents/agent-1', '/operations?agent_id=x']) {
      const response = await fetch(built.url + path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await response.text()).toContain('<title>console</title>');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'.*frame-ancestors 'none'/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves hashed assets as immutable, HEAD without a body, and 404s a missing file', async () => {
    const asset = await fetch(`${built.url}/assets/index-abc123.js`);
    expect([asset.status, asset.headers.get('content-type'), asset.headers.get('cache-control')]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'public, max-age=31536000, immutable',
    ]);
    const head = await fetch(`${built.url}/assets/index-abc123.js`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, '14', '']);
    expect((await fetch(`${built.url}/assets/gone.js`)).status).toBe(404);
  });

  it('never serves a file outside the built console', async () => {
    for (const path of ['/../outside-console.txt', '/%2e%2e/outside-console.txt', '/assets/..%2f..%2foutside-console.txt']) {
      const response = await fetch(built.url + path);
      expect(await response.text(), path).not.toContain('secret');
    }
    expect((await fetch(`${built.url}/%E0%A4%A`)).status).toBe(400);
  });

  it('leaves the API its paths and methods', async () => {
    const health = await fetch(`${built.url}/v1/health`);
    expect([health.status, health.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^application\/json/)]);
    for (const [method, path] of [['GET', '/v1/nothing'], ['GET', '/api/nothing'], ['GET', '/.well-known/nothing'], ['POST', '/']] as const) {
      const response = await fetch(built.url + path, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
  });

  it('says how to build the console when it is not built', async () => {
    const response = await fetch(`${unbuilt.url}/`);
    expect(response.status).toBe(503);
    expect(await response.text()).toMatch(/npm run build -w console/);
  });
});
