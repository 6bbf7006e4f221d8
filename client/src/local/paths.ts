/**
 * Where the client keeps its files (docs/API.md §1, client tooling): `AGENT_LEDGER_HOME`
 * (default `~/.agent-ledger`) holds `credentials` and one directory per agent,
 * `agents/<agent_id>/{config.json, key, chain.json, status-cache.json, errors.log}`.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { CliError } from '../cli/errors.js';

/** The server's agent_id rule (lambdas/routes/schemas/agents.ts): also keeps ids path-safe. */
const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

export function ledgerHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.AGENT_LEDGER_HOME;
  return configured && configured.trim() !== '' ? resolve(configured) : join(homedir(), '.agent-ledger');
}

export const credentialsPath = (home = ledgerHome()) => join(home, 'credentials');

export function agentDir(agentId: string, home = ledgerHome()): string {
  if (!AGENT_ID_PATTERN.test(agentId)) {
    throw new CliError(`invalid agent id "${agentId}": use 1-128 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit`);
  }
  return join(home, 'agents', agentId);
}

/** The files of one agent directory. */
export function agentFiles(dir: string) {
  return {
    dir,
    config: join(dir, 'config.json'),
    key: join(dir, 'key'),
    chain: join(dir, 'chain.json'),
    statusCache: join(dir, 'status-cache.json'),
    errors: join(dir, 'errors.log'),
    lock: join(dir, 'lock'),
  };
}

export type AgentPaths = ReturnType<typeof agentFiles>;
