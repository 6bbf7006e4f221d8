/**
 * Who the saved API token acts for and until when: GET /v1/auth/me, read by `login`, `status`
 * and `doctor` (docs/CLI.md "API token expiry"). `credential` and `org_name` are fields a
 * service older than them does not send; everything here works without them.
 */
import { LedgerClient, type ResponseOf } from '../sdk/client.js';
import { LedgerApiError } from '../sdk/errors.js';
import { expiryText, expiryWarning, rejectedText, tokenRejection, type TokenRejection } from './token-advice.js';

type ProfileResponse = ResponseOf<'GetProfile'>;
/** docs/API.md §4.1 GET /v1/auth/me, with the token this request came with. */
type Profile = Omit<ProfileResponse, 'current_organization'> & {
  current_organization: (NonNullable<ProfileResponse['current_organization']> & { org_name?: string }) | null;
  credential?: { kind: 'session' | 'api'; token_id: string; name: string | null; expires_at: number | null };
};

type LoginInfo =
  | { ok: true; profile: Profile; expiresAt: number | null | undefined; warning?: string }
  /** The service answered UNAUTHORIZED: `reason` when it said why (docs/API.md §7). */
  | { ok: false; rejected: true; reason?: TokenRejection; advice: string; error: LedgerApiError }
  /** No answer, or another error: the service could not say. */
  | { ok: false; rejected: false; error: Error };

export async function loginInfo(url: string, token: string, options: { deadline?: number; now?: number } = {}): Promise<LoginInfo> {
  const client = new LedgerClient({ url, token, ...(options.deadline ? { timeoutMs: Math.max(1, options.deadline - Date.now()) } : {}) });
  try {
    const profile = (await client.me()) as Profile;
    const expiresAt = profile.credential?.expires_at;
    const warning = expiryWarning(expiresAt, url, options.now);
    return { ok: true, profile, expiresAt, ...(warning ? { warning } : {}) };
  } catch (error) {
    if (error instanceof LedgerApiError && error.status === 401) {
      const reason = tokenRejection(error);
      return { ok: false, rejected: true, ...(reason ? { reason } : {}), advice: rejectedText(error, url), error };
    }
    return { ok: false, rejected: false, error: error as Error };
  }
}

/** "alice@example.com (Alice Doe), role org_owner" */
export function userText(profile: Profile): string {
  const { email, display_name: name, role } = profile.user;
  return `${email}${name && name !== email ? ` (${name})` : ''}, role ${role}`;
}

/** "Acme (org_…)" or the id alone, or "none". */
export function organizationText(profile: Profile): string {
  const org = profile.current_organization;
  if (!org) return profile.user.org_id ?? 'none';
  return org.org_name ? `${org.org_name} (${org.org_id})` : org.org_id;
}

/** The expiry as shown, or what is known when the service did not say. */
export function tokenText(info: Extract<LoginInfo, { ok: true }>, now = Date.now()): string {
  return expiryText(info.expiresAt, now) ?? 'expiry unknown (the service does not say)';
}
