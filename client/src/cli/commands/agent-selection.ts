/**
 * What `status` and `doctor` look at: the agent `--agent` names, or every agent under
 * AGENT_LEDGER_HOME, and the saved API token if there is one (both check what they can
 * without it).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readCredentials } from '../../local/credentials.js';
import { ledgerHome } from '../../local/paths.js';
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

/** The saved API token, or undefined when `agent-ledger login` has not saved one. */
export function savedToken(): string | undefined {
  try {
    return readCredentials().token;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return undefined;
  }
}
