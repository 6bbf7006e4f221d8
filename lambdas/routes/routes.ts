/**
 * The route table: every HTTP endpoint of docs/API.md §4 with its handler module, allowed roles
 * and request/response schemas. The local server (local/), the CDK stack (lib/api.ts) and
 * GET /v1/openapi.json all read this table; adding a route is one entry in the area's file
 * under route-table/ plus its handler file under lambdas/http/.
 *
 * A handler imports its own area's table (route-table/<area>.ts), never this file: a bundler
 * cannot drop the unused members of an object literal, so importing `routes` would put every
 * route's schemas into every function (npm run bundle-sizes).
 */
import type { RouteSpec } from './route-spec.js';
import { publicRoutes } from './route-table/public.js';
import { authRoutes } from './route-table/auth.js';
import { onboardingRoutes } from './route-table/onboarding.js';
import { memberRoutes } from './route-table/members.js';
import { adminRoutes } from './route-table/admin.js';
import { agentRoutes } from './route-table/agents.js';
import { operationRoutes } from './route-table/operations.js';
import { epochRoutes } from './route-table/epochs.js';
import { auditRoutes } from './route-table/audit.js';
import { exportRoutes } from './route-table/exports.js';
import { webhookRoutes } from './route-table/webhooks.js';
import { statsRoutes } from './route-table/stats.js';

export const routes = {
  ...publicRoutes,
  ...authRoutes,
  ...onboardingRoutes,
  ...memberRoutes,
  ...adminRoutes,
  ...agentRoutes,
  ...operationRoutes,
  ...epochRoutes,
  ...auditRoutes,
  ...exportRoutes,
  ...webhookRoutes,
  ...statsRoutes,
} satisfies Record<string, RouteSpec>;

/** All routes as a list, in table order. */
export const routeList: readonly RouteSpec[] = Object.values(routes);

/**
 * The catch-all handler for unknown paths and wrong methods: NOT_FOUND 404 in the error
 * envelope. In AWS it is the HTTP API's `$default` route; locally the server calls it.
 */
export const notFoundHandler = 'public/not-found';
