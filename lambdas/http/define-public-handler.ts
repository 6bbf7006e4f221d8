/** `definePublicHandler`: the handler of a route anyone may call, on the shared stack of handler-stack.ts. */
import type { RouteSpec } from '../routes/route-spec.js';
import { buildHandler, type LambdaHttpHandler, type RouteFunction } from './handler-stack.js';

/**
 * The handler of a public route: the same conventions, but no token is looked at, so the
 * bundle carries no table client (docs/ARCHITECTURE.md, Lean bundles). The route's auth must
 * be 'public'.
 *
 * @example
 * export const handler = definePublicHandler(routes.health, async () => ({ body: { status: 'ok', version } }));
 */
export function definePublicHandler<R extends RouteSpec & { auth: 'public' }>(route: R, fn: RouteFunction<NoInfer<R>>): LambdaHttpHandler {
  return buildHandler(route, fn, async () => null);
}
