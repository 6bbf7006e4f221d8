/**
 * The API tokens the caller may see (GET /v1/auth/tokens, docs/API.md §4.1 and §2.7 "API
 * token"): a member's own, every member's for org_owner and security_admin, whose table says
 * whose each is by the member's email (GET /v1/members). Never a secret: the list has none.
 * A token still working (active, or rotating in its grace period) can be revoked behind a
 * confirmation; the row then shows the answer of DELETE /v1/auth/tokens/{token_id}.
 */
import { useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client.js';
import { TOKEN_ADMINS } from '../api/roles.js';
import { useSession } from '../session.js';
import { useAction } from './action.js';
import { ConfirmButton } from './confirm.js';
import { Status } from './page.js';
import { pageQuery } from './pager.js';
import { ErrorText, Loaded, useResource, type Resource } from './states.js';
import { Table } from './table.js';
import { Time } from './time.js';

type ApiToken = Schemas['ApiToken'];
interface TokenPages {
  tokens: ApiToken[];
  next: string | null;
}

const PAGE_SIZE = 20;
const loadPage = (cursor: string | undefined) => call(api.GET('/v1/auth/tokens', { params: { query: pageQuery(cursor, PAGE_SIZE) } }));
/** Still working, so worth revoking: active, or rotating in its grace period. */
const REVOCABLE = new Set<ApiToken['status']>(['active', 'rotating']);

/**
 * The first page, then the pages "Load more" appends and the rows revoked since. Those belong to
 * the first page's answer they continue (`of`): `reload` shows the newest first page alone.
 */
export function useTokenList() {
  const first = useResource(() => loadPage(undefined), []);
  const [grown, setGrown] = useState<(TokenPages & { of: unknown }) | null>(null);
  const fresh = (data: NonNullable<typeof first.data>) => ({ of: data, tokens: data.tokens, next: data.next_cursor });
  const shown = first.data === undefined ? undefined : grown?.of === first.data ? grown : fresh(first.data);
  const update = (change: (pages: TokenPages) => TokenPages) => {
    const of = first.data;
    if (of === undefined) return;
    setGrown((previous) => ({ of, ...change(previous?.of === of ? previous : fresh(of)) }));
  };
  const more = useAction(async () => {
    if (!shown?.next) return;
    const page = await loadPage(shown.next);
    update((pages) => ({ tokens: [...pages.tokens, ...page.tokens], next: page.next_cursor }));
  });
  const replace = (token: ApiToken) => update((pages) => ({ ...pages, tokens: pages.tokens.map((t) => (t.token_id === token.token_id ? token : t)) }));
  const list: Resource<TokenPages> = { ...first, data: shown };
  return { list, more, replace, reload: first.reload };
}

type TokenList = ReturnType<typeof useTokenList>;

/** "“deploy-bot” (1a2b3c4d)" or "unnamed (1a2b3c4d)": enough to tell a token from the others in a sentence. */
const tokenWords = (token: ApiToken) => `${token.name === null ? 'unnamed' : `“${token.name}”`} (${token.token_id.slice(0, 8)})`;

/**
 * A name is kept on one line ("member-laptop-21", never "member- / laptop-21") unless it is long
 * (up to 128 characters, docs/API.md §4.1): then it wraps anywhere within the column.
 */
const LONG_NAME = 32;
const labelClass = (name: string | null) => (name === null ? 'token-label muted' : name.length > LONG_NAME ? 'token-label long' : 'token-label');

function RevokeToken({ token, tokens, onRevoked, onOthersChanged }: { token: ApiToken; tokens: ApiToken[]; onRevoked: (token: ApiToken) => void; onOthersChanged: () => void }) {
  const words = tokenWords(token);
  return (
    <ConfirmButton
      label="Revoke"
      name={`Revoke the token ${words}`}
      title={`Revoke the token ${words}?`}
      confirmLabel="Revoke token"
      danger
      onConfirm={async () => {
        const { token: revoked } = await call(api.DELETE('/v1/auth/tokens/{token_id}', { params: { path: { token_id: token.token_id } } }));
        onRevoked(revoked);
        // Revoking a rotation's successor also ends its predecessor's grace (docs/API.md §4.1): read that row again.
        if (tokens.some((t) => t.replaced_by === token.token_id && t.status === 'rotating')) onOthersChanged();
      }}
    >
      <p>
        It stops working at once: whatever uses it (an SDK, the CLI, a coding-agent hook) gets <code>UNAUTHORIZED</code> from its next request on. This cannot be undone; issue a new token
        to replace it.
      </p>
    </ConfirmButton>
  );
}

function useMemberEmails(enabled: boolean) {
  return useResource(
    () => (enabled ? call(api.GET('/v1/members')).then(({ members }) => new Map(members.map((m) => [m.user_id, m.email]))) : Promise.resolve(new Map<string, string>())),
    [enabled],
  );
}

/** An email that may break before its "@" when the column is narrow, and nowhere else. */
function emailOf(email: string | undefined) {
  if (email === undefined) return undefined;
  const at = email.lastIndexOf('@');
  return at <= 0 ? (
    email
  ) : (
    <>
      <span class="nobreak">{email.slice(0, at)}</span>
      <wbr />
      <span class="nobreak">{email.slice(at)}</span>
    </>
  );
}

function StatusCell({ token }: { token: ApiToken }) {
  return (
    <>
      <Status value={token.status} />
      {token.status === 'rotating' && token.ended_at !== null && (
        <div class="muted">
          works until <Time ms={token.ended_at * 1000} minutes />
        </div>
      )}
    </>
  );
}

export function TokensTable({ tokens }: { tokens: TokenList }) {
  const { role, profile } = useSession();
  const admin = role !== null && TOKEN_ADMINS.includes(role);
  const emails = useMemberEmails(admin);
  const owner = (userId: string) =>
    userId === profile?.user.user_id ? 'you' : (emailOf(emails.data?.get(userId)) ?? <code title={userId}>{userId.slice(0, 8)}…</code>);
  return (
    <section aria-labelledby="tokens">
      <h2 id="tokens">Tokens</h2>
      <p class="muted">
        {admin ? "Every member's tokens in this organization" : 'Your tokens in this organization'}, newest first. A token that stopped working stays listed 30 days.
      </p>
      <Loaded resource={tokens.list} what="tokens" isEmpty={(d) => d.tokens.length === 0} empty="No API token yet.">
        {(data) => (
          <>
            <Table caption="API tokens" columns={['Name', admin && 'Owner', 'Status', 'Created', 'Expires', 'Last used', 'Action']}>
              {data.tokens.map((token) => (
                <tr key={token.token_id}>
                  <td class="token-name">
                    <span class={labelClass(token.name)}>{token.name ?? 'unnamed'}</span>
                    <div>
                      <code class="muted" title={token.token_id}>
                        {token.token_id.slice(0, 8)}
                      </code>
                    </div>
                  </td>
                  {admin && <td class="token-owner">{owner(token.user_id)}</td>}
                  <td>
                    <StatusCell token={token} />
                  </td>
                  <td>
                    <Time ms={token.created_at * 1000} minutes />
                  </td>
                  <td>{token.expires_at === null ? 'never' : <Time ms={token.expires_at * 1000} minutes />}</td>
                  <td>{token.last_used_at === null ? <span class="muted">never</span> : <Time ms={token.last_used_at * 1000} minutes />}</td>
                  <td>{REVOCABLE.has(token.status) && <RevokeToken token={token} tokens={data.tokens} onRevoked={tokens.replace} onOthersChanged={tokens.reload} />}</td>
                </tr>
              ))}
            </Table>
            {data.next !== null && (
              <button type="button" disabled={tokens.more.busy} onClick={() => void tokens.more.run()}>
                {tokens.more.busy ? 'Loading…' : 'Load more'}
              </button>
            )}
            <ErrorText error={tokens.more.error} />
          </>
        )}
      </Loaded>
    </section>
  );
}
