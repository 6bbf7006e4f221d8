/**
 * Outbound webhook HTTP (domain/ports.ts WebhookTransport): the same node:https client in
 * AWS and locally, under the egress policy with LEDGER_WEBHOOK_ALLOW_LOOPBACK from config.
 *
 * DNS is the system resolver, unless a test has put a resolver on globalThis under
 * WEBHOOK_RESOLVE_OVERRIDE (test/support/webhook-dns.ts): the egress tests need names that
 * resolve to chosen addresses, and to change what they resolve to between registration and
 * delivery. It is read at every lookup, through globalThis because handlers and tests may
 * load this module under different URLs (as local/ shares the in-process queue).
 */
import { HttpsTransport, systemResolve, type Resolve } from '../adapters/webhooks/https-transport.js';
import { config } from '../config.js';
import type { WebhookTransport } from '../domain/ports.js';
import { once } from '../shared/once.js';

export const WEBHOOK_RESOLVE_OVERRIDE = Symbol.for('agent-ledger.webhook-resolve');

const resolve: Resolve = (hostname) => {
  const override = (globalThis as { [WEBHOOK_RESOLVE_OVERRIDE]?: Resolve })[WEBHOOK_RESOLVE_OVERRIDE];
  return (override ?? systemResolve)(hostname);
};

export const webhookTransport = once(
  (): WebhookTransport =>
    new HttpsTransport({ allowLoopback: config().webhookAllowLoopback, resolve, userAgent: `agent-ledger-webhooks/${config().version}` }),
);
