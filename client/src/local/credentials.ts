/**
 * `credentials` under AGENT_LEDGER_HOME: the service URL and the API token, mode 0600
 * (docs/API.md §1: secrets only from owner-readable files or a no-echo prompt), and the
 * token's expiry as `login` learnt it, so that the hook can warn without a request
 * (docs/CLI.md "API token expiry").
 */
import { CliError } from '../cli/errors.js';
import { readOwnerOnly, writeFileAtomic } from './files.js';
import { credentialsPath } from './paths.js';

export interface Credentials {
  url: string;
  token: string;
  /** Unix seconds, null for a token that never expires; absent when the service did not say. */
  expires_at?: number | null;
}

export function readCredentials(path = credentialsPath()): Credentials {
  let text: string;
  try {
    text = readOwnerOnly(path, 'credentials');
  } catch (error) {
    if (error instanceof CliError && error.message.startsWith('credentials not found')) {
      throw new CliError(`not logged in (no ${path}): run \`agent-ledger login --url URL\` first`);
    }
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Credentials;
    if (typeof parsed.url === 'string' && typeof parsed.token === 'string' && parsed.token !== '') return parsed;
  } catch {
    // reported below
  }
  throw new CliError(`${path} is not a credentials file written by agent-ledger; run \`agent-ledger login --url URL\` again`);
}

export function writeCredentials(credentials: Credentials, path = credentialsPath()): void {
  writeFileAtomic(path, `${JSON.stringify(credentials)}\n`, 0o600);
}
