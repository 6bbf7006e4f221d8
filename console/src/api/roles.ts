/**
 * What the signed-in role may do, from the route table compiled into the bundle
 * (build/route-roles.ts). Pages ask `can('POST /v1/agents/{agent_id}/freeze')` with the
 * docs/API.md §4 method and path; a route the running service does not have yet is never allowed.
 */
export type Role = 'org_owner' | 'security_admin' | 'compliance_auditor' | 'integration_engineer' | 'readonly_investigator';

export const ROLES: readonly Role[] = ['org_owner', 'security_admin', 'compliance_auditor', 'integration_engineer', 'readonly_investigator'];

/** The roles that see and end every member's API tokens, not only their own (docs/API.md §4.1). */
export const TOKEN_ADMINS: readonly Role[] = ['org_owner', 'security_admin'];

export const ROLE_LABELS: Record<Role, string> = {
  org_owner: 'Owner',
  security_admin: 'Security admin',
  compliance_auditor: 'Compliance auditor',
  integration_engineer: 'Integration engineer',
  readonly_investigator: 'Read-only investigator',
};

export function allows(role: Role | null, route: string): boolean {
  const auth = __ROUTE_ROLES__[route];
  if (auth === undefined || role === null) return false;
  if (typeof auth === 'string') return auth !== 'api_token';
  return auth.includes(role);
}
