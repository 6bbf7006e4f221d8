/**
 * The development OAuth provider's consent page: on the local stack it stands in for the
 * Google and GitHub sign-in pages, so social sign-in can be tried and tested end to end
 * without accounts at either. Pressing "Continue" signs in as the email typed there, so it
 * is opt-in (LEDGER_DEV_OAUTH=1, config.ts), never deployed (its routes are `localOnly`),
 * answers NOT_FOUND whenever it is off, and never signs in as an account with a password
 * (dev-oauth-codes.ts). SECURITY.md, Rules the service enforces.
 */
import { config } from '../../config.js';
import { LedgerError } from '../../shared/errors.js';

const DEV_CONTINUE_PATH = '/api/auth/dev-oauth/continue';

export function assertDevProviderEnabled(method: string, path: string): void {
  if (!config().devOAuth) throw new LedgerError('NOT_FOUND', `no route for ${method} ${path}`);
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

interface ConsentRequest {
  provider: 'google' | 'github';
  redirect_uri: string;
  state: string;
  code_challenge: string;
  code_challenge_method: 'S256';
}

export function consentPage(request: ConsentRequest): string {
  const providerName = request.provider === 'google' ? 'Google' : 'GitHub';
  const hidden = Object.entries(request)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(String(value))}">`)
    .join('\n      ');
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Development sign-in (${providerName})</title></head>
  <body>
    <h1>Development sign-in: ${providerName}</h1>
    <p>This page stands in for ${providerName} on the local stack (LEDGER_DEV_OAUTH=1). Choose who to sign in as;
    an address with a password account signs in with its password instead.</p>
    <form method="get" action="${DEV_CONTINUE_PATH}">
      ${hidden}
      <label>Email <input type="email" name="email" value="dev.user@example.test" required></label>
      <label>Name <input type="text" name="name" value="Dev User" required></label>
      <button type="submit">Continue as this user</button>
    </form>
  </body>
</html>
`;
}
