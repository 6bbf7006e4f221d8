// Agent key history and pins (docs/EXPORT.md "Key history", "Pinned agent keys"): an operator
// holding the service key swaps one agent's key for a fresh one of its own and re-signs
// everything consistently (records, receipts, epochs, log, checkpoint, key events, manifest).
// On its own that export verifies; against the agent's pins it fails naming the agent, and
// against an earlier genuine export (verify --since) it fails even without pins.
import { describe, expect, it } from 'vitest';
import {
  b64uEncode,
  canonicalBytes,
  ed25519Jwk,
  keyEventHash,
  keyThumbprint,
  parseAgentKeyPins,
  privateKeyFromSeed,
  provePossession,
  rawPublicKey,
  sha256,
  sign,
  verifyExportBundle,
  verifyExtends,
  type ExportBundle,
  type ExportVerificationReport,
  type KeyEvent,
} from '../../src/index.js';
import { agentKeySpecs, agentsWith, base, buildScenario, materialize, type AgentKeySpec } from '../exportscenario.js';
import { utf8 } from '../vectors.js';

const failed = (r: ExportVerificationReport) => r.findings.filter((f) => f.status === 'failed');
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function resign(b: ExportBundle): ExportBundle {
  const digest = sha256(canonicalBytes(b.body));
  return { body: b.body, manifest: { ...b.manifest, body_sha256: b64uEncode(digest), signature: b64uEncode(sign(base.serviceKey, digest)) } };
}

/** Pins as `agent-ledger agent keys --export` prints them on each agent's machine: its public JWKs. */
function pinsOf(agents: string[]): Record<string, unknown[]> {
  return Object.fromEntries(agents.map((id) => [id, agentKeySpecs(id).map((k) => ed25519Jwk(rawPublicKey(k.key)))]));
}

const FRESH = privateKeyFromSeed(sha256(utf8('agent-ledger operator fresh key')));
/** agent-alpha's first key replaced by the operator's own, same kid, same window: re-signed throughout. */
const swapped = agentKeySpecs('agent-alpha').map((k, i): AgentKeySpec => (i === 0 ? { ...k, key: FRESH } : k));
const forged = materialize(buildScenario(agentsWith('agent-alpha', swapped)));
const genuine = materialize(base);

describe('a re-signed export with one agent key swapped', () => {
  it('verifies on its own, every agent reported unpinned', () => {
    const r = verifyExportBundle(forged, { jwks: base.jwks });
    expect(failed(r)).toEqual([]);
    expect(r.agents.map((a) => [a.agent_id, a.pin])).toEqual([['agent-alpha', 'unpinned'], ['agent-beta', 'unpinned'], ['agent-gamma', 'unpinned']]);
    expect(r.findings.find((f) => f.where === 'agents.agent-alpha')?.status).toBe('not_covered');
  });

  it("fails against the agents' pins, naming the agent whose key is not its own", () => {
    const pins = parseAgentKeyPins(pinsOf(['agent-alpha', 'agent-beta']));
    const r = verifyExportBundle(forged, { jwks: base.jwks, pins });
    expect(r.valid).toBe(false);
    expect(failed(r).map((f) => [f.where, f.check])).toEqual([['agents.agent-alpha', 'key_pin']]);
    expect(failed(r)[0]!.reason).toContain(keyThumbprint(b64uEncode(rawPublicKey(FRESH))));
    expect(r.agents.map((a) => [a.agent_id, a.pin])).toEqual([['agent-alpha', 'mismatched'], ['agent-beta', 'pinned'], ['agent-gamma', 'unpinned']]);
  });

  it('the genuine export passes the same pins, given as JWKs or as thumbprints', () => {
    const jwks = verifyExportBundle(genuine, { jwks: base.jwks, pins: parseAgentKeyPins(pinsOf(['agent-alpha', 'agent-beta', 'agent-gamma'])) });
    expect(failed(jwks)).toEqual([]);
    expect(jwks.agents.every((a) => a.pin === 'pinned')).toBe(true);
    const thumbs = Object.fromEntries(Object.entries(pinsOf(['agent-alpha'])).map(([id, list]) => [id, list.map((j) => (j as { kid: string }).kid)]));
    const r = verifyExportBundle(genuine, { jwks: base.jwks, pins: parseAgentKeyPins(thumbs) });
    expect(r.agents.find((a) => a.agent_id === 'agent-alpha')?.pin).toBe('pinned');
  });

  it('fails verify --since an earlier genuine export without any pins, naming the agent', () => {
    const r = verifyExtends(genuine, forged, { jwks: base.jwks });
    expect(r.valid).toBe(false);
    expect(r.newer.valid).toBe(true);
    const keyFindings = r.findings.filter((f) => f.where.startsWith('log.key_events'));
    expect(keyFindings).toHaveLength(1);
    expect(keyFindings[0]!.reason).toContain('agent agent-alpha');
    expect(keyFindings[0]!.reason).toContain('not an extension of the older one');
    expect(verifyExtends(genuine, clone(genuine), { jwks: base.jwks }).valid).toBe(true);
  });

  it('fails verify --since when the newer export drops a key event, even if the epoch log were left alone', () => {
    const newer = clone(genuine);
    newer.body.verification_material.log!.key_events!.pop();
    const r = verifyExtends(genuine, resign(newer), { jwks: base.jwks });
    expect(r.findings.some((f) => f.where === 'log.key_events[6]' && f.reason.includes('agent agent-gamma') && f.reason.includes('missing'))).toBe(true);
  });
});

describe('key windows', () => {
  it('rotation, retirement and revocation keep every earlier record verifiable', () => {
    const r = verifyExportBundle(genuine, { jwks: base.jwks });
    expect(r.valid).toBe(true);
    expect(r.checks.key_window).toEqual({ passed: 24, failed: 0, not_covered: 0 });
    const events = genuine.body.verification_material.log!.key_events!.map((e) => `${e.event} ${e.kid}`);
    expect(events).toEqual(['register alpha-2024', 'register beta-1', 'register gamma-1', 'register gamma-unused', 'add alpha-2025', 'retire alpha-2024', 'revoke gamma-1']);
  });

  it('a record signed after its key was retired fails, naming the record', () => {
    // alpha-2024 retired at T0 + 20 s: its record at T0 + 36 s came after.
    const keys = agentKeySpecs('agent-alpha').map((k, i) => (i === 0 ? { ...k, retired_at: k.created_at + 86_400_000 + 20_000 } : k));
    const r = verifyExportBundle(materialize(buildScenario(agentsWith('agent-alpha', keys))), { jwks: base.jwks });
    const off = failed(r).filter((f) => f.check === 'key_window');
    expect(off.map((f) => f.where)).toEqual(['operations[4].record.agent_pubkey_kid']);
    expect(off[0]!.reason).toMatch(/^operation 01977a00-0000-7000-8000-000000000004 of agent agent-alpha: signed at \d+, after key alpha-2024 was retired/);
  });

  it('a record signed before its key was registered fails, and so does one after revocation', () => {
    const alpha = agentKeySpecs('agent-alpha').map((k, i) => (i === 1 ? { ...k, created_at: k.created_at + 30_000 } : k));
    const early = verifyExportBundle(materialize(buildScenario(agentsWith('agent-alpha', alpha))), { jwks: base.jwks });
    expect(failed(early).filter((f) => f.check === 'key_window').map((f) => f.reason)[0]).toMatch(/before key alpha-2025 was registered/);
    const gamma = agentKeySpecs('agent-gamma').map((k, i) => (i === 0 ? { ...k, retired_at: k.created_at + 3_600_000 + 100_000 } : k));
    const late = verifyExportBundle(materialize(buildScenario(agentsWith('agent-gamma', gamma))), { jwks: base.jwks });
    const reasons = failed(late).filter((f) => f.check === 'key_window').map((f) => f.reason);
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons.every((r) => r.includes('after key gamma-1 was revoked'))).toBe(true);
  });
});

describe('key events', () => {
  const events = (b: ExportBundle): KeyEvent[] => b.body.verification_material.log!.key_events!;

  it('a registration without a valid proof of possession fails', () => {
    const b = clone(genuine);
    const e = events(b)[1]!;
    e.proof = provePossession(FRESH, { org_id: e.org_id, agent_id: e.agent_id, kid: e.kid, registered_at: e.time });
    const r = verifyExportBundle(resign(b), { jwks: base.jwks });
    expect(failed(r).map((f) => [f.where, f.check])).toContainEqual(['verification_material.log.key_events[1]', 'key_event']);
    expect(failed(r).find((f) => f.check === 'key_event')!.reason).toContain('proof of possession');
  });

  it('a key registered without a proof verifies, reported unproven by agent and kid; required proofs fail it', () => {
    const unproven = materialize(buildScenario(agentsWith('agent-beta', agentKeySpecs('agent-beta').map((k, i) => (i === 0 ? { ...k, unproven: true } : k)))));
    const kid = agentKeySpecs('agent-beta')[0]!.kid;
    expect(events(unproven).find((e) => e.agent_id === 'agent-beta' && e.kid === kid)!.proof).toBeNull();
    const r = verifyExportBundle(unproven, { jwks: base.jwks });
    expect(failed(r)).toEqual([]);
    expect(r.valid).toBe(true);
    expect(r.unproven_keys).toEqual([{ agent_id: 'agent-beta', kid, reason: expect.stringContaining('registered without one') }]);
    expect(r.findings.filter((f) => f.check === 'key_possession').map((f) => `${f.status} ${f.reason}`)).toEqual([expect.stringMatching(new RegExp(`^not_covered agent agent-beta key ${kid}: possession not proven`))]);
    const required = verifyExportBundle(unproven, { jwks: base.jwks, requireKeyProofs: true });
    expect(required.valid).toBe(false);
    expect(failed(required).map((f) => f.check)).toEqual(['key_possession']);
    // The genuine export: every key proven, so requiring proofs changes nothing.
    const all = verifyExportBundle(genuine, { jwks: base.jwks, requireKeyProofs: true });
    expect(`${all.valid} ${all.unproven_keys.length} ${all.checks.key_possession.failed}`).toBe('true 0 0');
    expect(all.checks.key_possession.passed).toBeGreaterThan(0);
  });

  it('a key of a bundle without key history is unproven', () => {
    const old = clone(genuine);
    old.body.bundle_version = '1.1';
    delete (old.body.verification_material.log as { key_events?: unknown }).key_events;
    const r = verifyExportBundle(resign(old), { jwks: base.jwks });
    expect(r.valid).toBe(true);
    expect(r.unproven_keys.length).toBe(r.checks.key_possession.not_covered);
    expect(r.unproven_keys[0]!.reason).toMatch(/bundle 1.1 carries no key history/);
    expect(verifyExportBundle(resign(old), { jwks: base.jwks, requireKeyProofs: true }).valid).toBe(false);
  });

  it('an event rewritten in place breaks the chain, and one rechained breaks the log entries that committed to it', () => {
    const b = clone(genuine);
    events(b)[2]!.time += 1;
    expect(failed(verifyExportBundle(resign(b))).map((f) => f.where)).toContain('verification_material.log.key_events[3]');
    // Rechained from there on: the chain holds, but the entries' key_log_head no longer matches.
    const c = clone(genuine);
    const list = events(c);
    list[5]!.time += 1;
    list[6]!.prev_event_hash = keyEventHash(list[5]!);
    const r = verifyExportBundle(resign(c));
    expect(failed(r).filter((f) => f.check === 'key_log').map((f) => f.where)).toEqual(['verification_material.log.entries[0]', 'verification_material.log.entries[1]', 'verification_material.log.entries[2]', 'verification_material.log.entries[3]']);
  });

  it('a 1.2 bundle without key events fails; pins that are not keys are refused', () => {
    const b = clone(genuine);
    delete (b.body.verification_material.log as { key_events?: unknown }).key_events;
    expect(failed(verifyExportBundle(resign(b))).map((f) => [f.where, f.check])).toEqual([['verification_material.log.key_events', 'key_event']]);
    expect(() => parseAgentKeyPins({ 'agent-alpha': ['not-a-key'] })).toThrow(/pin 0 of agent agent-alpha/);
    expect(() => parseAgentKeyPins(['agent-alpha'])).toThrow(/JSON object/);
  });
});
