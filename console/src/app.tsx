/**
 * The console's shell: routes, the signed-in layout (skip link, navigation with only the pages
 * the role may open, the current organization and role) and the gates in front of it (sign-in
 * when signed out, onboarding until the user has an organization).
 */
import type { ComponentType } from 'preact';
import { useEffect } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { ROLE_LABELS } from './api/roles.js';
import { SessionProvider, useSession } from './session.js';
import { AdminLogPage } from './pages/admin-log.js';
import { AgentDetailPage } from './pages/agent-detail.js';
import { AgentsPage } from './pages/agents.js';
import { CheckEmailPage, SignInPage, SignUpPage } from './pages/auth.js';
import { EpochsPage } from './pages/epochs.js';
import { ExportsPage } from './pages/exports.js';
import { MembersPage } from './pages/members.js';
import { NotFoundPage } from './pages/not-found.js';
import { OnboardingPage } from './pages/onboarding.js';
import { OperationDetailPage } from './pages/operation-detail.js';
import { OperationsPage } from './pages/operations.js';
import { OrganizationPage } from './pages/organization.js';
import { OverviewPage } from './pages/overview.js';
import { TokensPage } from './pages/tokens.js';
import { WebhookDetailPage } from './pages/webhook-detail.js';
import { WebhooksPage } from './pages/webhooks.js';

/** The pages of the navigation, each behind the route its list needs (docs/API.md §4). */
const NAV: { href: string; label: string; needs: string }[] = [
  { href: '/', label: 'Overview', needs: 'GET /v1/auth/me' },
  { href: '/agents', label: 'Agents', needs: 'GET /v1/agents' },
  { href: '/operations', label: 'Operations', needs: 'GET /v1/operations/{operation_id}' },
  { href: '/epochs', label: 'Epochs', needs: 'GET /v1/epochs' },
  { href: '/exports', label: 'Exports', needs: 'GET /v1/exports' },
  { href: '/webhooks', label: 'Webhooks', needs: 'GET /v1/webhooks' },
  { href: '/members', label: 'Members', needs: 'GET /v1/members' },
  { href: '/organization', label: 'Organization', needs: 'GET /v1/organization' },
  { href: '/tokens', label: 'API tokens', needs: 'POST /v1/auth/token' },
  { href: '/admin-log', label: 'Admin log', needs: 'GET /v1/admin/events' },
];

function Layout({ children }: { children: preact.ComponentChildren }) {
  const { profile, role, organization, can, signOut } = useSession();
  const { path, route } = useLocation();
  const current = (href: string) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));
  return (
    <div class="shell">
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">agent-ledger</span>
        <span class="org">
          {organization?.org_name ?? profile?.current_organization?.org_id}
          {role && <span class="badge">{ROLE_LABELS[role]}</span>}
        </span>
        <span class="who">
          {profile?.user.email}
          <button
            type="button"
            onClick={async () => {
              await signOut();
              route('/sign-in');
            }}
          >
            Sign out
          </button>
        </span>
      </header>
      <nav class="side" aria-label="Main">
        <ul>
          {NAV.filter((item) => can(item.needs)).map((item) => (
            <li key={item.href}>
              <a href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** Route components receive the path parameters as props (preact-iso). */
function page<P>(component: ComponentType<P>) {
  return component as ComponentType<unknown>;
}

/**
 * Signed in already: the sign-in and sign-up addresses lead to the overview, keeping what a
 * verification link said (?verified=1, ?verify_error=) so that the overview confirms it.
 */
function ToOverview() {
  const { route, query } = useLocation();
  useEffect(() => {
    const kept = new URLSearchParams(Object.entries(query).filter(([name]) => name === 'verified' || name === 'verify_error'));
    route(kept.toString() !== '' ? `/?${kept}` : '/', true);
  }, [route]);
  return null;
}

function Gate() {
  const { profile } = useSession();
  if (profile === undefined) {
    return (
      <p class="state muted centered" role="status">
        Loading…
      </p>
    );
  }
  if (profile === null) {
    return (
      <Router>
        <Route path="/sign-up" component={page(SignUpPage)} />
        <Route path="/check-email" component={page(CheckEmailPage)} />
        <Route default component={page(SignInPage)} />
      </Router>
    );
  }
  if (!profile.current_organization || !profile.user.onboarding_completed) return <OnboardingPage />;
  return (
    <Layout>
      <Router>
        <Route path="/" component={page(OverviewPage)} />
        <Route path="/sign-in" component={page(ToOverview)} />
        <Route path="/sign-up" component={page(ToOverview)} />
        <Route path="/agents" component={page(AgentsPage)} />
        <Route path="/agents/:agent_id" component={page(AgentDetailPage)} />
        <Route path="/operations" component={page(OperationsPage)} />
        <Route path="/operations/:operation_id" component={page(OperationDetailPage)} />
        <Route path="/epochs" component={page(EpochsPage)} />
        <Route path="/exports" component={page(ExportsPage)} />
        <Route path="/webhooks" component={page(WebhooksPage)} />
        <Route path="/webhooks/:webhook_id" component={page(WebhookDetailPage)} />
        <Route path="/members" component={page(MembersPage)} />
        <Route path="/organization" component={page(OrganizationPage)} />
        <Route path="/tokens" component={page(TokensPage)} />
        <Route path="/admin-log" component={page(AdminLogPage)} />
        <Route default component={page(NotFoundPage)} />
      </Router>
    </Layout>
  );
}

export function App() {
  return (
    <LocationProvider>
      <SessionProvider>
        <Gate />
      </SessionProvider>
    </LocationProvider>
  );
}
