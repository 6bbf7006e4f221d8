/**
 * `defineHandler`: the handler of a route that authenticates its caller (authenticate.ts:
 * token, role, rate limit), on the shared stack of handler-stack.ts. Public routes use
 * define-public-handler.ts instead, so their bundles carry no table client.
 */
import type { RouteSpec } from '../routes/route-spec.js';
import { authenticate } from './authenticate.js';
import { buildHandler, type HandlerOptions, type LambdaHttpHandler, type RouteFunction } from './handler-stack.js';

export type { LambdaHttpHandler, RouteFunction };

/**
 * Wraps `fn` as the Lambda handler of `route`, authenticating the caller its `auth` asks for.
 *
 * @example
 * export const handler = defineHandler(routes.getAgent, async ({ caller, params }) => ({ body: await getAgentDetail(caller, params.agent_id) }));
 */
export function defineHandler<R extends RouteSpec>(route: R, fn: RouteFunction<NoInfer<R>>, options: HandlerOptions = {}): LambdaHttpHandler {
  return buildHandler(route, fn, authenticate, options);
}
