/**
 * `agent-ledger login --url URL [--token-file FILE]`: checks an API token against the
 * service (GET /v1/auth/me) and stores URL and token in AGENT_LEDGER_HOME/credentials
 * (mode 0600) under the URL's origin, replacing only that origin's entry (the logins to other
 * services stay, each sent only to its own origin), and makes it the current login. The token comes from FILE (which must be owner-only), from stdin when it is
 * not a terminal, or from a no-echo prompt: never from the command line. It says whom the
 * token acts for, in which organization, and when it expires (docs/CLI.md "API token expiry").
 */
import { LedgerApiError, LedgerTransportError } from '../../sdk/errors.js';
import { checkCredentialsFile, saveLogin } from '../../local/credentials.js';
import { readOwnerOnly } from '../../local/files.js';
import { credentialsPath } from '../../local/paths.js';
import { parseOptions, required } from '../args.js';
import { CliError } from '../errors.js';
import { loginInfo, organizationText, tokenText, userText } from '../login-info.js';
import { promptSecret, readAllStdin } from '../prompt.js';
import { looksLikeTokenId, tokensPage, type TokenRejection } from '../token-advice.js';

const REJECTED: Record<TokenRejection, string> = {
  expired: 'it has expired',
  revoked: 'it was revoked',
  rotated: 'it was replaced by rotation and its grace period is over',
};

export async function login(args: string[]): Promise<number> {
  const { values } = parseOptions(args, { url: { type: 'string' }, 'token-file': { type: 'string' } });
  const url = normalizeUrl(required(values.url, '--url'));
  const path = credentialsPath();
  // A credentials file others can read is fixed first (chmod 600): its other logins are kept.
  checkCredentialsFile(path);
  const token = (
    values['token-file'] !== undefined
      ? readOwnerOnly(values['token-file'], 'token file')
      : process.stdin.isTTY
        ? await promptSecret(`API token for ${url} (input hidden): `)
        : await readAllStdin()
  ).trim();
  if (token === '') throw new CliError('the token is empty');
  // The console lists tokens by id; the id is no secret and no token, so it is not sent.
  if (looksLikeTokenId(token)) {
    throw new CliError(`that is a token id, not the token: copy the token itself (it starts with alt_ and is shown once, when it is made) from the console's API tokens page, ${tokensPage(url)}`);
  }

  const info = await loginInfo(url, token);
  if (!info.ok && info.rejected) {
    const why = info.reason ? `: ${REJECTED[info.reason]}` : ` (${info.error.code})`;
    throw new CliError(`${url} did not accept the token${why}; make a new one on the console's API tokens page, ${tokensPage(url)}, and log in with it`);
  }
  if (!info.ok) {
    const { error } = info;
    throw error instanceof LedgerTransportError || error instanceof LedgerApiError ? new CliError(`could not check the token with ${url}: ${error.message}`) : error;
  }
  const { origin, replacedCorrupt } = saveLogin({ url, token, ...(info.expiresAt !== undefined ? { expires_at: info.expiresAt } : {}) }, path);
  const lines = [
    `logged in to ${url} as ${userText(info.profile)}`,
    `  organization  ${organizationText(info.profile)}`,
    `  token         ${tokenText(info)}`,
    ...(info.warning ? [`  WARNING       ${info.warning}`] : []),
    `token for ${origin} stored in ${path} (mode 600)${replacedCorrupt ? `, replacing a file that was not a credentials file` : ''}`,
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
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
