/**
 * Sign in, sign up and the email verification step (docs/API.md §4.1). The verification mail's
 * link (GET /api/auth/verify-email) comes back to /sign-in?verified=1, or ?verify_error= saying why it
 * failed; social buttons appear
 * only for the providers GET /api/auth/providers lists.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call } from '../api/client.js';
import { submitTo, useAction } from '../components/action.js';
import { PageTitle } from '../components/page.js';
import { ErrorText, useResource } from '../components/states.js';
import { useSession } from '../session.js';

const PROVIDER_NAMES = { google: 'Google', github: 'GitHub' } as const;

function SocialButtons() {
  const providers = useResource(() => call(api.GET('/api/auth/providers')), []);
  const start = useAction(async (provider: 'google' | 'github') => {
    const started = await call(api.POST('/api/auth/sign-in/social', { body: { provider, callbackURL: `${location.origin}/` } }));
    location.assign(started.url);
  });
  const social = providers.data?.social ?? [];
  if (social.length === 0) return null;
  return (
    <div class="social">
      <p class="muted">or</p>
      {social.map((provider) => (
        <button key={provider} type="button" onClick={() => void start.run(provider)} disabled={start.busy}>
          Continue with {PROVIDER_NAMES[provider]}
        </button>
      ))}
      <ErrorText error={start.error} />
    </div>
  );
}

/** Why the verification link failed, as GET /api/auth/verify-email sends a browser here (?verify_error=). */
const VERIFY_ERRORS: Record<string, string> = {
  expired: 'This verification link has expired: links are valid for 24 hours. Sign in and ask for a new link from the “Check your email” page.',
  used: 'This verification link was already used. If it was you, the address is verified: sign in.',
  unknown: 'This verification link is not one we know: it may be cut short or mistyped. Open the link from the latest mail again.',
};

export function SignInPage() {
  const { refresh } = useSession();
  const { query, route } = useLocation();
  const [email, setEmail] = useState(query.email ?? '');
  const [password, setPassword] = useState('');
  const signIn = useAction(async () => {
    await call(api.POST('/api/auth/sign-in/email', { body: { email, password } }));
    await refresh();
    route('/');
  });
  return (
    <main class="auth" id="content">
      <PageTitle title="Sign in to agent-ledger" />
      {query.verified === '1' && (
        <p class="notice" role="status">
          Your email address is verified. Sign in to continue.
        </p>
      )}
      {query.verify_error !== undefined && (
        <p class="error" role="alert">
          Your email address was not verified. {VERIFY_ERRORS[query.verify_error] ?? VERIFY_ERRORS.unknown}
        </p>
      )}
      <form onSubmit={submitTo(signIn.run)}>
        <label>
          Email
          <input type="email" name="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input type="password" name="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        <ErrorText error={signIn.error} />
        <button type="submit" class="primary" disabled={signIn.busy}>
          {signIn.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <SocialButtons />
      <p>
        New here? <a href="/sign-up">Create an account</a>
      </p>
    </main>
  );
}

export function SignUpPage() {
  const { route } = useLocation();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signUp = useAction(async () => {
    await call(api.POST('/api/auth/sign-up/email', { body: { name, email, password, callbackURL: `/sign-in?verified=1&email=${encodeURIComponent(email)}` } }));
    route(`/check-email?email=${encodeURIComponent(email)}`);
  });
  return (
    <main class="auth" id="content">
      <PageTitle title="Create your account" />
      <form onSubmit={submitTo(signUp.run)}>
        <label>
          Name
          <input name="name" autoComplete="name" required maxLength={256} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Email
          <input type="email" name="email" autoComplete="email" required maxLength={256} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password <span class="muted">(at least 8 characters)</span>
          <input
            type="password"
            name="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={256}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <ErrorText error={signUp.error} />
        <button type="submit" class="primary" disabled={signUp.busy}>
          {signUp.busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <SocialButtons />
      <p>
        Have an account? <a href="/sign-in">Sign in</a>
      </p>
    </main>
  );
}

export function CheckEmailPage() {
  const { query } = useLocation();
  const email = query.email ?? '';
  const [sent, setSent] = useState(false);
  const resend = useAction(async () => {
    await call(api.POST('/api/auth/send-verification-email', { body: { email, callbackURL: `/sign-in?verified=1&email=${encodeURIComponent(email)}` } }));
    setSent(true);
  });
  return (
    <main class="auth" id="content">
      <PageTitle title="Check your email" />
      <p>
        We sent a verification link to <strong>{email || 'your address'}</strong>. Open it to verify the address; it brings you back here to
        sign in. Invitations to an organization are shown once the address is verified.
      </p>
      <p class="muted">On the local stack the mail is a log line of `npm start` (“mail sent (local identity provider)”) with the link.</p>
      {sent && (
        <p class="notice" role="status">
          Sent again.
        </p>
      )}
      <ErrorText error={resend.error} />
      <p>
        <button type="button" onClick={() => void resend.run()} disabled={resend.busy || !email}>
          Send the link again
        </button>{' '}
        <a href={`/sign-in?email=${encodeURIComponent(email)}`}>Sign in</a>
      </p>
    </main>
  );
}
