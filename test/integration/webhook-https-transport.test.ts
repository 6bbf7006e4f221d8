// The webhook HTTP client under the egress policy (lambdas/adapters/webhooks/https-transport.ts,
// docs/WEBHOOKS.md), against real local servers: no redirect followed, a hanging endpoint cut
// at the deadline, a huge answer not read, DNS rebinding refused, and the checked address
// connected to with the original Host and TLS SNI.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpsTransport, type Resolve } from '../../lambdas/adapters/webhooks/https-transport.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const PUBLIC = '93.184.216.34';
const delivery = (url: string) => ({ url, headers: { 'X-Service-Webhook-Event': 'ping' }, body: '{"event":"ping"}' });
const resolver = (table: Record<string, string[]>): Resolve => async (name) =>
  (table[name] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const);

let receiver: WebhookReceiver;
let other: WebhookReceiver;
beforeAll(async () => {
  [receiver, other] = await Promise.all([startReceiver(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([receiver.close(), other.close()]);
});

describe('answers', () => {
  const transport = new HttpsTransport({ allowLoopback: true, resolve: resolver({}), timeoutMs: 400 });

  it('a redirect is an answer like any other: not followed', async () => {
    receiver.answer(() => ({ status: 302, headers: { location: `${other.origin}/stolen` } }));
    const before = other.received.length;
    const outcome = await transport.post(delivery(`${receiver.origin}/redirect`));
    expect(outcome).toMatchObject({ kind: 'response', status: 302 });
    expect(other.received.length).toBe(before);
  });

  it('an endpoint that never answers is cut at the deadline', async () => {
    receiver.answer(() => 'hang');
    const outcome = await transport.post(delivery(`${receiver.origin}/hang`));
    expect(outcome).toMatchObject({ kind: 'error', refused: false, error: 'timed out after 400 ms' });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(350);
    expect(outcome.latencyMs).toBeLessThan(2000);
  });

  it('a 10 MB answer is not read past 64 KiB; the status counts and 1 KiB is kept', async () => {
    let written = 0;
    let finished = false;
    const big = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (written < 10 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(() => (finished = true));
      };
      pump();
    });
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = big.address() as { port: number };
      const outcome = await new HttpsTransport({ allowLoopback: true, resolve: resolver({}), timeoutMs: 5000 }).post(delivery(`http://127.0.0.1:${port}/`));
      expect(outcome).toMatchObject({ kind: 'response', status: 200 });
      expect(outcome.kind === 'response' && outcome.excerpt.length).toBe(1024);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The server could hand over no more than the socket buffers took before we closed.
      expect(finished).toBe(false);
      expect(written).toBeLessThan(10 * 1024 * 1024);
    } finally {
      big.closeAllConnections();
      big.close();
    }
  });
});

describe('addresses', () => {
  it('DNS rebinding: a name that was public at the check and is loopback at delivery is refused', async () => {
    let calls = 0;
    const rebinding: Resolve = async () => [{ address: calls++ === 0 ? PUBLIC : '127.0.0.1', family: 4 }];
    const transport = new HttpsTransport({ allowLoopback: false, resolve: rebinding });
    expect(await transport.check('https://rebind.example.test/hook')).toEqual({ allowed: true, url: 'https://rebind.example.test/hook' });
    const before = receiver.received.length;
    const outcome = await transport.post(delivery(`https://rebind.example.test:${new URL(receiver.origin).port}/hook`));
    expect(outcome).toMatchObject({ kind: 'error', refused: true });
    expect(outcome.kind === 'error' && outcome.error).toMatch(/127\.0\.0\.1.*loopback/);
    expect(receiver.received.length).toBe(before);
  });

  it('one forbidden address among several refuses the name; so does a name that does not resolve', async () => {
    const transport = new HttpsTransport({
      allowLoopback: false,
      resolve: resolver({ 'mixed.example.test': [PUBLIC, '2606:4700::1', '169.254.169.254'], 'v6.example.test': ['fd00:ec2::254'] }),
    });
    expect(await transport.check('https://mixed.example.test/')).toMatchObject({ allowed: false, reason: expect.stringMatching(/169\.254\.169\.254.*link-local/) });
    expect(await transport.check('https://v6.example.test/')).toMatchObject({ allowed: false, reason: expect.stringMatching(/unique-local/) });
    expect(await transport.check('https://nowhere.example.test/')).toMatchObject({ allowed: false, reason: expect.stringMatching(/does not resolve/) });
  });

  it('without LEDGER_WEBHOOK_ALLOW_LOOPBACK a loopback receiver is never reached, by literal or by name', async () => {
    const transport = new HttpsTransport({ allowLoopback: false, resolve: resolver({ 'local.example.test': ['127.0.0.1'] }) });
    const before = receiver.received.length;
    const port = new URL(receiver.origin).port;
    for (const url of [`${receiver.origin}/x`, `https://127.0.0.1:${port}/x`, `https://local.example.test:${port}/x`, `https://[::ffff:127.0.0.1]:${port}/x`]) {
      expect(await transport.post(delivery(url)), url).toMatchObject({ kind: 'error', refused: true });
    }
    expect(receiver.received.length).toBe(before);
  });

  it('connects to the checked address with the original Host header and TLS SNI, verifying the certificate for the name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-webhook-tls-'));
    try {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-subj', '/CN=receiver.example.test', '-addext', 'subjectAltName=DNS:receiver.example.test',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ], { stdio: 'ignore' });
      const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
      const seen: { host?: string; servername?: string | false | null } = {};
      const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
        seen.host = req.headers.host;
        seen.servername = (req.socket as TLSSocket).servername;
        req.resume();
        res.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as { port: number };
        const transport = new HttpsTransport({ allowLoopback: true, resolve: resolver({ 'receiver.example.test': ['127.0.0.1'] }), ca: cert });
        const outcome = await transport.post(delivery(`https://receiver.example.test:${port}/in`));
        expect(outcome).toMatchObject({ kind: 'response', status: 200, excerpt: 'ok' });
        expect(seen).toEqual({ host: `receiver.example.test:${port}`, servername: 'receiver.example.test' });
        // The certificate is checked against the name, not the address.
        const wrongName = new HttpsTransport({ allowLoopback: true, resolve: resolver({ 'other.example.test': ['127.0.0.1'] }), ca: cert });
        expect(await wrongName.post(delivery(`https://other.example.test:${port}/in`))).toMatchObject({ kind: 'error', refused: false });
      } finally {
        server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
