/**
 * How the routes are spread over nested stacks (CloudFormation allows 500 resources per
 * template; each route brings about nine: function, role, policy, log group, API route,
 * integration, invoke permission and two alarms). A route's area is the first directory of
 * its handler module (`agents/register` → `agents`), so routes added to the route table land
 * in their area's stack without any change here, and an area grows a second stack
 * (`agents2`) once it holds more than MAX_ROUTES_PER_STACK routes. The infra test keeps every
 * template under TEMPLATE_RESOURCE_LIMIT.
 */
import type { RouteSpec } from '../lambdas/routes/route-spec.js';
import { pascal } from './names.js';

/** The bound every template is held to, well below CloudFormation's 500 (test/infra/operability.test.ts). */
export const TEMPLATE_RESOURCE_LIMIT = 300;

/** Routes per nested stack: 25 × 9 resources = 225, leaving room for a resource or two more per route. */
export const MAX_ROUTES_PER_STACK = 25;

export interface RouteArea {
  /** Construct id of the area's nested stack: `Routes<Area>`, `Routes<Area>2`, ... */
  readonly id: string;
  readonly routes: readonly RouteSpec[];
}

/** The area of a route: its handler's first directory (`root` for a handler at the top of http/). */
export function areaOf(route: RouteSpec): string {
  const slash = route.handler.indexOf('/');
  return slash < 0 ? 'root' : route.handler.slice(0, slash);
}

/** The routes grouped by area in table order, each area cut into stacks of at most `maxPerStack`. */
export function routeAreas(routes: readonly RouteSpec[], maxPerStack = MAX_ROUTES_PER_STACK): RouteArea[] {
  const byArea = new Map<string, RouteSpec[]>();
  for (const route of routes) byArea.set(areaOf(route), [...(byArea.get(areaOf(route)) ?? []), route]);
  return [...byArea].flatMap(([area, members]) =>
    Array.from({ length: Math.ceil(members.length / maxPerStack) }, (_, chunk) => ({
      id: `Routes${pascal(area)}${chunk === 0 ? '' : chunk + 1}`,
      routes: members.slice(chunk * maxPerStack, (chunk + 1) * maxPerStack),
    })),
  );
}
