/**
 * API tokens (docs/API.md §4.1, §5): issue one (shown once, with a copy button), and rotate one:
 * rotation is API-token-only, so the old token is pasted here and sent as the bearer of that
 * one request; the answer shows until when the old one keeps working.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { submitTo, useAction } from '../components/action.js';
import { CopyButton } from '../components/copy.js';
import { PageTitle } from '../components/page.js';
import { ErrorText } from '../components/states.js';
import { Time } from '../components/time.js';

// A finite lifetime by default (90 days): a token on a lost laptop should not work forever.
// "No expiry" stays available, as the API's default (docs/API.md §4.1).
const LIFETIMES: { label: string; seconds: number | null }[] = [
  { label: '1 day', seconds: 86_400 },
  { label: '30 days', seconds: 2_592_000 },
  { label: '90 days', seconds: 7_776_000 },
  { label: '1 year', seconds: 31_536_000 },
  { label: 'No expiry', seconds: null },
];
const DEFAULT_LIFETIME = String(LIFETIMES.findIndex((l) => l.label === '90 days'));

interface Issued {
  token: string;
  token_id: string;
  expires_at: number | null;
  previous_token_grace_until?: number;
}

function NewToken({ issued, heading }: { issued: Issued; heading: string }) {
  return (
    <div class="secret" role="region" aria-label={heading}>
      <h3>{heading}</h3>
      <p>Copy it now: it is shown only once and cannot be read back.</p>
      <p class="token-line">
        <code data-secret>{issued.token}</code> <CopyButton text={issued.token} label="the new token" />
      </p>
      {/* The id names the token in lists and logs; it is not a credential, so it gets no copy button of its own. */}
      <p class="muted">
        Token id <code title={issued.token_id}>{issued.token_id}</code>;{' '}
        {issued.expires_at === null ? 'no expiry' : <>expires <Time ms={issued.expires_at * 1000} /></>}.
      </p>
      {issued.previous_token_grace_until !== undefined && (
        <p class="notice">
          The old token keeps working until <Time ms={issued.previous_token_grace_until * 1000} /> (the grace period), then stops.
        </p>
      )}
    </div>
  );
}

function IssueToken() {
  const [lifetime, setLifetime] = useState(DEFAULT_LIFETIME);
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<Issued | null>(null);
  const issue = useAction(async () => {
    const seconds = LIFETIMES[Number(lifetime)]!.seconds;
    const trimmed = name.trim();
    setIssued(await call(api.POST('/v1/auth/token', { body: { ttl_seconds: seconds, ...(trimmed === '' ? {} : { name: trimmed }) } })));
    setName('');
  });
  return (
    <section aria-labelledby="issue">
      <h2 id="issue">New token</h2>
      <p class="muted">
        For the SDK, the CLI (<code>agent-ledger login</code>) and coding-agent hooks. It acts with your role in this organization.
      </p>
      <form class="inline" onSubmit={submitTo(issue.run)}>
        <label>
          Name
          <input type="text" maxLength={128} placeholder="e.g. Ada's laptop" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Lifetime
          <select value={lifetime} onChange={(e) => setLifetime(e.currentTarget.value)}>
            {LIFETIMES.map((l, i) => (
              <option key={l.label} value={String(i)}>
                {l.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={issue.busy}>
          Create token
        </button>
      </form>
      <ErrorText error={issue.error} />
      {issued && <NewToken issued={issued} heading="Your new API token" />}
    </section>
  );
}

function RotateToken() {
  const [old, setOld] = useState('');
  const [rotated, setRotated] = useState<Issued | null>(null);
  const rotate = useAction(async () => {
    setRotated(await call(api.POST('/v1/auth/rotate', { headers: { authorization: `Bearer ${old.trim()}` } })));
    setOld('');
  });
  return (
    <section aria-labelledby="rotate">
      <h2 id="rotate">Rotate a token</h2>
      <p class="muted">Paste the token to replace. You get a new one with the same lifetime; the old one keeps working for a grace period.</p>
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
  return (
    <>
      <PageTitle title="API tokens" />
      <IssueToken />
      <RotateToken />
    </>
  );
}
