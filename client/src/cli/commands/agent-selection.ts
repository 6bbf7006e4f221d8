/**
 * What `status` and `doctor` look at: the agent `--agent` names, or every agent under
 * AGENT_LEDGER_HOME, and the saved URL and API token if there are (both check what they can
 * without them).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readCredentials, type Credentials } from '../../local/credentials.js';
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

/** The saved URL and API token, or undefined when `agent-ledger login` has not saved one. */
export function savedCredentials(): Credentials | undefined {
  try {
    return readCredentials();
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return undefined;
  }
}
