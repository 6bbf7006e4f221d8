/**
 * One agent's local state (docs/API.md §1, client tooling): `config.json` (service URL, tool
 * flag, on-error policy, identity), `key` (Ed25519 private key, PKCS#8 PEM, mode 0600),
 * `chain.json` (seq_no and chain_hash of the last accepted record), `status-cache.json`
 * (freeze status, 60 s TTL, docs/API.md §8) and `errors.log`.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { CliError } from '../cli/errors.js';
import type { InstallRecord } from '../install/install-record.js';
import { readIfExists, readOwnerOnly, writeFileAtomic } from './files.js';
import type { AgentPaths } from './paths.js';

export const ON_ERROR = ['deny', 'allow'] as const;
type OnError = (typeof ON_ERROR)[number];

export interface AgentConfig {
  agent_id: string;
  org_id: string;
  url: string;
  /** The coding-tool flag (docs/HOOKS.md), or `sdk` / `other` for agents without a hook. */
  tool: string;
  on_error: OnError;
  kid: string;
  public_key: string;
  /** How long the hook waits for the service before applying on_error (ms). */
  timeout_ms: number;
  /** Larger tool inputs are recorded as {truncated, sha256, bytes} (docs/PROTOCOL.md default limit). */
  max_payload_bytes: number;
  created_at: string;
  /** What `agent init` changed in the tool's configuration; `agent uninstall` undoes it. */
  install?: InstallRecord;
}

interface ChainState {
  seq_no: number;
  chain_hash: string;
  /** The last accepted record's id: GET /v1/operations/:id shows it. */
  operation_id?: string;
}

interface StatusCache {
  status: string;
  checked_at: number;
}

/** docs/API.md §8: the hook trusts a cached freeze status for 60 seconds. */
const STATUS_CACHE_TTL_MS = 60_000;

export function readConfig(paths: AgentPaths): AgentConfig {
  const text = readIfExists(paths.config);
  if (text === undefined) {
    throw new CliError(`no agent directory at ${paths.dir}: run \`agent-ledger agent init\` first (or check AGENT_LEDGER_HOME)`);
  }
  let config: AgentConfig;
  try {
    config = JSON.parse(text) as AgentConfig;
  } catch {
    throw new CliError(`${paths.config} is not valid JSON; run \`agent-ledger agent init\` again to recreate it`);
  }
  for (const field of ['agent_id', 'org_id', 'url', 'kid'] as const) {
    if (typeof config[field] !== 'string' || config[field] === '') throw new CliError(`${paths.config} has no ${field}`);
  }
  return config;
}

export function writeConfig(paths: AgentPaths, config: AgentConfig): void {
  writeFileAtomic(paths.config, `${JSON.stringify(config, null, 2)}\n`);
}

export function readKey(paths: AgentPaths): KeyObject {
  const pem = readOwnerOnly(paths.key, 'agent key');
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('not Ed25519');
    return key;
  } catch {
    throw new CliError(`${paths.key} does not hold an Ed25519 private key (PKCS#8 PEM)`);
  }
}

/** The stored head, undefined when chain.json does not exist (fetched from the service then). */
export function readChain(paths: AgentPaths): ChainState | undefined {
  const text = readIfExists(paths.chain);
  if (text === undefined) return undefined;
  let chain: ChainState | undefined;
  try {
    chain = JSON.parse(text) as ChainState;
  } catch {
    chain = undefined;
  }
  if (!chain || !Number.isSafeInteger(chain.seq_no) || chain.seq_no < 0 || typeof chain.chain_hash !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(chain.chain_hash)) {
    throw new CliError(`${paths.chain} is corrupt; delete it to resynchronise the chain head from the service: rm ${paths.chain}`);
  }
  return chain;
}

export function writeChain(paths: AgentPaths, chain: ChainState): void {
  writeFileAtomic(paths.chain, `${JSON.stringify(chain)}\n`);
}

/** The cached status when it is younger than the TTL. */
export function readStatusCache(paths: AgentPaths, now = Date.now()): StatusCache | undefined {
  const text = readIfExists(paths.statusCache);
  if (text === undefined) return undefined;
  try {
    const cache = JSON.parse(text) as StatusCache;
    if (typeof cache.status !== 'string' || typeof cache.checked_at !== 'number') return undefined;
    return now - cache.checked_at < STATUS_CACHE_TTL_MS && cache.checked_at <= now + 1000 ? cache : undefined;
  } catch {
    return undefined;
  }
}

export function writeStatusCache(paths: AgentPaths, status: string, now = Date.now()): void {
  writeFileAtomic(paths.statusCache, `${JSON.stringify({ status, checked_at: now })}\n`);
}

/** Appends one line to errors.log (never to stdout, where a coding tool parses answers). */
export function logError(paths: AgentPaths, message: string): void {
  try {
    appendFileSync(paths.errors, `${new Date().toISOString()} ${message.replace(/\s*\n\s*/g, ' ')}\n`, { mode: 0o600 });
  } catch {
    // The agent directory may be missing; stderr carries the message anyway.
  }
}

/** The last `count` lines of errors.log. */
export function lastErrors(paths: AgentPaths, count: number): string[] {
  const text = readIfExists(paths.errors);
  if (!text) return [];
  return text.trimEnd().split('\n').slice(-count);
}
