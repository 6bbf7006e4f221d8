/**
 * What `status` and `doctor` look at: the agent `--agent` names, or every agent under
 * AGENT_LEDGER_HOME, and the saved logins, one per service origin (both check what they can
 * without them, and check each agent with its own origin's token only).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loginFor, noLoginMessage, readCredentialStore, type CredentialStore, type Credentials } from '../../local/credentials.js';
import { serviceOrigin } from '../../local/origin.js';
import { readConfig } from '../../local/agent-state.js';
import { agentDir, agentFiles, ledgerHome } from '../../local/paths.js';
import { CliError } from '../errors.js';

/** The agent ids to check; an empty list has been explained on stdout (how to create one). */
export function selectedAgents(agent: string | undefined): string[] {
  const home = ledgerHome();
  const ids = agent ? [agent] : listAgents(home);
  if (ids.length === 0) process.stdout.write(`no agents in ${join(home, 'agents')}: create one with \`agent-ledger agent init --tool FLAG\`\n`);
  return ids;
}

function listAgents(home: string): string[] {
  try {
    return readdirSync(join(home, 'agents')).sort();
  } catch {
    return [];
  }
}

/** The service URLs of the agents whose config.json can be read (their own checks report the others). */
export function agentUrls(ids: string[]): string[] {
  return ids.flatMap((id) => {
    try {
      return [readConfig(agentFiles(agentDir(id))).url];
    } catch {
      return [];
    }
  });
}

/** The saved logins, or why they cannot be read (a file others can read, a corrupt one). */
export type SavedLogins = { store: CredentialStore } | { error: string };

export function savedLogins(): SavedLogins {
  try {
    return { store: readCredentialStore() };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { error: error.message };
  }
}

/** The login of the origin of an agent's service URL, or what to say instead (which origin lacks one, or why none can be read). */
export function agentLogin(saved: SavedLogins, url: string): { login: Credentials } | { problem: string } {
  if ('error' in saved) return { problem: `cannot read the API tokens: ${saved.error}` };
  let origin: string;
  try {
    origin = serviceOrigin(url);
  } catch (error) {
    return { problem: `the agent's service URL: ${(error as Error).message}` };
  }
  const login = loginFor(saved.store, origin);
  return login ? { login } : { problem: noLoginMessage(origin) };
}

/**
 * The logins to check, each once: the current login first when `withCurrent` (no --agent),
 * then those of the agents' origins, in the agents' order. An origin without a login is
 * not here: each of its agents says so.
 */
export function loginsToCheck(saved: SavedLogins, agentUrls: string[], withCurrent: boolean): Credentials[] {
  if ('error' in saved) return [];
  const origins = agentUrls.flatMap((url) => {
    try {
      return [serviceOrigin(url)];
    } catch {
      return [];
    }
  });
  if (withCurrent && saved.store.current !== undefined) origins.unshift(saved.store.current);
  const logins: Credentials[] = [];
  for (const origin of new Set(origins)) {
    const login = loginFor(saved.store, origin);
    if (login) logins.push(login);
  }
  return logins;
}
