/**
 * API tokens (docs/API.md §4.1, §2.7 "API token", §5): issue one, named and with a lifetime
 * within the organization's cap (shown once, its Copy button copying the secret itself); the
 * tokens the caller may see, with revoke; and rotation: it is API-token-only, so the old
 * token is pasted here and sent as the bearer of that one request, and the answer shows until
 * when the old one keeps working.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { submitTo, useAction } from '../components/action.js';
import { CopyButton } from '../components/copy.js';
import { PageTitle } from '../components/page.js';
import { ErrorText, Loaded, useResource } from '../components/states.js';
import { Time } from '../components/time.js';
import { defaultLifetime, duration, lifetimesWithin } from '../components/token-lifetimes.js';
import { TokensTable, useTokenList } from '../components/token-table.js';

interface Issued {
  token: string;
  token_id: string;
  expires_at: number | null;
  previous_token_grace_until?: number;
}

function NewToken({ issued, heading, name }: { issued: Issued; heading: string; name?: string }) {
  return (
    <div class="secret" role="region" aria-label={heading}>
      <h3>{heading}</h3>
      <p>Copy it now: it is shown only once and cannot be read back.</p>
      <div class="token-line">
        <code data-secret>{issued.token}</code>
        <CopyButton text={issued.token} label="the token" prominent />
      </div>
      <p class="muted">
        {name !== undefined && <>Named “{name}”. </>}
        {issued.expires_at === null ? 'No expiry' : <>Expires <Time ms={issued.expires_at * 1000} /></>}. Listed below as <code>{issued.token_id.slice(0, 8)}</code>.
      </p>
      {issued.previous_token_grace_until !== undefined && (
        <p class="notice">
          The old token keeps working until <Time ms={issued.previous_token_grace_until * 1000} /> (the grace period), then stops.
        </p>
      )}
    </div>
  );
}

const lifetimeValue = (seconds: number | null) => (seconds === null ? 'none' : String(seconds));

function IssueForm({ cap, onIssued }: { cap: number | null; onIssued: () => void }) {
  const choices = lifetimesWithin(cap);
  const [lifetime, setLifetime] = useState(lifetimeValue(defaultLifetime(choices).seconds));
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<{ answer: Issued; name?: string } | null>(null);
  // A cap changed since the choice was made: fall back to the default within the new one.
  const chosen = choices.find((choice) => lifetimeValue(choice.seconds) === lifetime) ?? defaultLifetime(choices);
  const issue = useAction(async () => {
    const trimmed = name.trim();
    const body = trimmed === '' ? { ttl_seconds: chosen.seconds } : { ttl_seconds: chosen.seconds, name: trimmed };
    const answer = await call(api.POST('/v1/auth/token', { body }));
    setIssued(trimmed === '' ? { answer } : { answer, name: trimmed });
    setName('');
    onIssued();
  });
  return (
    <>
      <form class="inline" onSubmit={submitTo(issue.run)}>
        <label>
          <span>
            Name <span class="muted">(optional)</span>
          </span>
          <input value={name} maxLength={128} placeholder="e.g. ci-deploy" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Lifetime
          <select value={lifetimeValue(chosen.seconds)} onChange={(e) => setLifetime(e.currentTarget.value)}>
            {choices.map((choice) => (
              <option key={choice.label} value={lifetimeValue(choice.seconds)}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={issue.busy}>
          Create token
        </button>
      </form>
      {cap !== null && <p class="muted">This organization's tokens last at most {duration(cap)}.</p>}
      <ErrorText error={issue.error} />
      {issued && <NewToken issued={issued.answer} name={issued.name} heading="Your new API token" />}
    </>
  );
}

function IssueToken({ onIssued }: { onIssued: () => void }) {
  // Read when the page opens, not from the session: an admin may have set the cap since sign-in.
  const organization = useResource(() => call(api.GET('/v1/organization')), []);
  return (
    <section aria-labelledby="issue">
      <h2 id="issue">New token</h2>
      <p class="muted">
        For the SDK, the CLI (<code>agent-ledger login</code>) and coding-agent hooks. It acts with your role in this organization.
      </p>
      <Loaded resource={organization} what="the organization's token limit">
        {({ organization: org }) => <IssueForm cap={org.max_token_ttl_seconds} onIssued={onIssued} />}
      </Loaded>
    </section>
  );
}

function RotateToken({ onRotated }: { onRotated: () => void }) {
  const [old, setOld] = useState('');
  const [rotated, setRotated] = useState<Issued | null>(null);
  const rotate = useAction(async () => {
    setRotated(await call(api.POST('/v1/auth/rotate', { headers: { authorization: `Bearer ${old.trim()}` } })));
    setOld('');
    onRotated();
  });
  return (
    <section aria-labelledby="rotate">
      <h2 id="rotate">Rotate a token</h2>
      <p class="muted">Paste the token to replace. You get a new one with the same name and lifetime; the old one keeps working for a grace period.</p>
      <form class="inline" onSubmit={submitTo(rotate.run)}>
        <label>
          Token to rotate
          <input type="password" autoComplete="off" required value={old} onInput={(e) => setOld(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={rotate.busy}>
          Rotate
        </button>
      </form>
      <ErrorText error={rotate.error} />
      {rotated && <NewToken issued={rotated} heading="The replacement token" />}
    </section>
  );
}

export function TokensPage() {
  const tokens = useTokenList();
  return (
    <>
      <PageTitle title="API tokens" />
      <IssueToken onIssued={tokens.reload} />
      <TokensTable tokens={tokens} />
      <RotateToken onRotated={tokens.reload} />
    </>
  );
}
