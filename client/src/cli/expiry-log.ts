/**
 * The hook's warning, in the agent's errors.log, that the API token expires within 7 days
 * (docs/CLI.md "API token expiry"). It reads the expiry `login` stored in the credentials for
 * the agent's own service origin, so it costs no request; it is written at most once a day, so that errors.log (and `status`'s
 * last errors) are not filled with one line per tool use.
 */
import { credentialsFor } from '../local/credentials.js';
import { lastErrors, logError } from '../local/agent-state.js';
import type { AgentPaths } from '../local/paths.js';
import { expiryWarning } from './token-advice.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far back errors.log is searched for the last warning. */
const LOOK_BACK_LINES = 50;
const MARK = 'the API token expires in';

/** `serviceUrl`: the agent's service (config.json `url`), whose token is the one warned about. */
export function logExpiryWarning(paths: AgentPaths, serviceUrl: string, now = Date.now()): void {
  let warning: string | undefined;
  try {
    const credentials = credentialsFor(serviceUrl);
    warning = expiryWarning(credentials.expires_at, credentials.url, now);
  } catch {
    return; // the submission that just succeeded read them; nothing to add if they are gone now
  }
  if (!warning) return;
  const recent = lastErrors(paths, LOOK_BACK_LINES).some((line) => line.includes(MARK) && now - Date.parse(line.slice(0, line.indexOf(' '))) < DAY_MS);
  if (!recent) logError(paths, warning);
}
