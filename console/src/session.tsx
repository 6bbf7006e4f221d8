/**
 * Who is signed in: the profile (GET /v1/auth/me, docs/API.md §2.7) and the role of the current
 * organization, for every page through `useSession()`. Unauthenticated is a state, not an
 * error: UNAUTHORIZED from /v1/auth/me means "show the sign-in page".
 */
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { ApiError, api, call, type Schemas } from './api/client.js';
import { allows, type Role } from './api/roles.js';

type Profile = Awaited<ReturnType<typeof loadProfile>>;

interface Session {
  /** undefined while loading, null when signed out. */
  profile: Profile | null | undefined;
  role: Role | null;
  organization: Schemas['Organization'] | null;
  can: (route: string) => boolean;
  refresh: () => Promise<void>;
  signOut: () => Promise<void>;
}

async function loadProfile() {
  return call(api.GET('/v1/auth/me'));
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [profile, setProfile] = useState<Profile | null | undefined>(undefined);
  const [organization, setOrganization] = useState<Schemas['Organization'] | null>(null);
  const [failure, setFailure] = useState<unknown>(undefined);

  const refresh = useCallback(async () => {
    try {
      const me = await loadProfile();
      setProfile(me);
      setOrganization(me.current_organization ? await call(api.GET('/v1/organization')).then((r) => r.organization, () => null) : null);
      setFailure(undefined);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        setProfile(null);
        setOrganization(null);
      } else {
        setFailure(error);
      }
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const signOut = useCallback(async () => {
    await call(api.POST('/api/auth/sign-out'));
    setProfile(null);
    setOrganization(null);
  }, []);

  const role = (profile?.current_organization?.role ?? null) as Role | null;
  const value: Session = { profile, role, organization, can: (route) => allows(role, route), refresh, signOut };
  if (failure !== undefined && profile === undefined) {
    return (
      <main class="centered">
        <h1>agent-ledger</h1>
        <p class="error" role="alert">
          The service did not answer: {failure instanceof Error ? failure.message : String(failure)}
        </p>
        <button type="button" onClick={() => void refresh()}>
          Try again
        </button>
      </main>
    );
  }
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
