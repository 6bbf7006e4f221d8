/**
 * Who may call each route, read from the route table (lambdas/routes/routes.ts) at build time
 * and compiled into the bundle as `__ROUTE_ROLES__`, keyed `METHOD /path` as docs/API.md §4 writes
 * them. The console hides what a role may not do; the server still decides (docs/API.md §5).
 */
import { routeList } from '../../lambdas/routes/routes.js';

/** `'public' | 'optional' | 'user' | 'session' | 'api_token'` or the role list, per `METHOD /path`. */
export function routeRoles(): Record<string, string | readonly string[]> {
  return Object.fromEntries(routeList.map((route) => [`${route.method} ${route.path}`, route.auth]));
}
