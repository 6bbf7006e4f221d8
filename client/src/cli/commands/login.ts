/**
 * `agent-ledger login --url URL [--token-file FILE]`: checks an API token against the
 * service (GET /v1/auth/me) and stores URL and token in AGENT_LEDGER_HOME/credentials
 * (mode 0600). The token comes from FILE (which must be owner-only), from stdin when it is
 * not a terminal, or from a no-echo prompt: never from the command line.
 */
import { LedgerApiError, LedgerTransportError } from '../../sdk/errors.js';
import { LedgerClient } from '../../sdk/client.js';
import { writeCredentials } from '../../local/credentials.js';
import { readOwnerOnly } from '../../local/files.js';
import { credentialsPath } from '../../local/paths.js';
import { parseOptions, required } from '../args.js';
import { CliError } from '../errors.js';
import { promptSecret, readAllStdin } from '../prompt.js';

export async function login(args: string[]): Promise<number> {
  const { values } = parseOptions(args, { url: { type: 'string' }, 'token-file': { type: 'string' } });
  const url = normalizeUrl(required(values.url, '--url'));
  const token = (
    values['token-file'] !== undefined
      ? readOwnerOnly(values['token-file'], 'token file')
      : process.stdin.isTTY
        ? await promptSecret(`API token for ${url} (input hidden): `)
        : await readAllStdin()
  ).trim();
  if (token === '') throw new CliError('the token is empty');

  const client = new LedgerClient({ url, token });
  let who: string;
  try {
    const me = await client.me();
    who = `${me.user.email} (organization ${me.user.org_id ?? 'none'}, role ${me.user.role})`;
  } catch (error) {
    if (error instanceof LedgerApiError && error.status === 401) throw new CliError(`${url} did not accept the token (${error.code}); issue one with POST /v1/auth/token`);
    if (error instanceof LedgerApiError || error instanceof LedgerTransportError) throw new CliError(`could not check the token with ${url}: ${error.message}`);
    throw error;
  }
  writeCredentials({ url, token });
  process.stderr.write(`logged in to ${url} as ${who}; token stored in ${credentialsPath()} (mode 600)\n`);
  return 0;
}

export function normalizeUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--url must be an absolute http(s) URL such as https://ledger.example.com (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--url must use http or https (got "${value}")`);
  if (url.username || url.password) throw new CliError('--url must not carry credentials');
  return url.href.replace(/\/+$/, '');
}
