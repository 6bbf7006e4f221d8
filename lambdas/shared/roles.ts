/** The five roles of docs/API.md §5. */
export const ROLES = [
  'org_owner',
  'security_admin',
  'compliance_auditor',
  'integration_engineer',
  'readonly_investigator',
] as const;

export type Role = (typeof ROLES)[number];

/**
 * Roles with the read_all capability (docs/API.md §5): they see every agent of the organization
 * even once assignments exist. integration_engineer and readonly_investigator lack it.
 */
export const READ_ALL_ROLES: readonly Role[] = ['org_owner', 'security_admin', 'compliance_auditor'];

/** Role groups as docs/API.md §4 lists them per endpoint. */
export const ADMINS: readonly Role[] = ['org_owner', 'security_admin'];
export const ALL_ROLES: readonly Role[] = ROLES;
export const AUDITORS: readonly Role[] = ['org_owner', 'security_admin', 'compliance_auditor'];
export const AGENT_WRITERS: readonly Role[] = ['org_owner', 'security_admin', 'integration_engineer'];
