/**
 * Sign in, sign up and the email verification step (docs/API.md §4.1). The verification mail's
 * link (GET /api/auth/verify-email) comes back to /sign-in?verified=1, or ?verify_error= saying why it
 * failed; social buttons appear
 * only for the providers GET /api/auth/providers lists.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ApiError, call } from '../api/client.js';
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
  unknown: 'This verification link is not one we know: it may be cut short or mistyped. Open the link from the latest mail again.',
};

/**
 * What the verification link's answer means, where it lands (?verified=1 or ?verify_error=):
 * on the sign-in page, or on the overview for someone already signed in. A link used a second
 * time means the address is verified already: that is good news, not an error.
 */
export function VerificationNotice({ signedIn }: { signedIn: boolean }) {
  const { query } = useLocation();
  const next = signedIn ? '' : ' Sign in to continue.';
  if (query.verified === '1' || query.verify_error === 'used') {
    return (
      <p class="notice" role="status">
        {query.verified === '1' ? 'Your email address is verified.' : 'This link was used already: your email address is verified.'}
        {next}
      </p>
    );
  }
  if (query.verify_error === undefined) return null;
  return (
    <p class="error" role="alert">
      Your email address is not verified yet. {VERIFY_ERRORS[query.verify_error] ?? VERIFY_ERRORS.unknown}
    </p>
  );
}

/** A wrong email or password says so: 401 on this form means the credentials, not a session that ended. */
function signInError(error: unknown): unknown {
  return error instanceof ApiError && error.code === 'UNAUTHORIZED' ? new Error('The email or the password is wrong. Check both and try again.') : error;
}

/** The sign-up form's error; an address that has an account gets a way to sign in with it. */
function SignUpError({ error, email }: { error: unknown; email: string }) {
  if (error instanceof ApiError && error.status === 409) {
    return (
      <p class="error" role="alert">
        An account with this email already exists. <a href={`/sign-in?email=${encodeURIComponent(email)}`}>Sign in with it</a> instead.
      </p>
    );
  }
  return <ErrorText error={error} />;
}

export function SignInPage() {
  const { refresh } = useSession();
  const { query, route } = useLocation();
  const [email, setEmail] = useState(query.email ?? '');
  const [password, setPassword] = useState('');
  const signIn = useAction(async () => {
    await call(api.POST('/api/auth/sign-in/email', { body: { email, password } })).catch((error: unknown) => {
      throw signInError(error);
    });
    await refresh();
    route('/');
  });
  return (
    <main class="auth" id="content">
      <PageTitle title="Sign in to agent-ledger" />
      <VerificationNotice signedIn={false} />
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
        <SignUpError error={signUp.error} email={email} />
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
      <p class="muted">
        On the local stack the mail is a line of <code>npm start</code>’s output (“mail sent (local identity provider)”) with the link.
      </p>
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
