/**
 * Matches a request path against the route table's API Gateway path templates. Used by the
 * local server to pick a handler and by the not-found handler to tell a wrong method
 * (the path exists) from an unknown path.
 */
import type { RouteSpec } from './route-spec.js';

interface RouteMatch {
  route: RouteSpec;
  pathParameters: Record<string, string>;
}

interface CompiledTemplate {
  route: RouteSpec;
  pattern: RegExp;
  names: string[];
}

function compile(route: RouteSpec): CompiledTemplate {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (param?.[1]) {
        names.push(param[1]);
        return '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/** Compiles a route list once; the returned functions are cheap per request. */
export function routeMatcher(routes: readonly RouteSpec[]) {
  const compiled = routes.map(compile);

  function matchPath(path: string): RouteMatch[] {
    const matches: RouteMatch[] = [];
    for (const { route, pattern, names } of compiled) {
      const found = pattern.exec(path);
      if (!found) continue;
      const pathParameters: Record<string, string> = {};
      let decodable = true;
      names.forEach((name, index) => {
        try {
          pathParameters[name] = decodeURIComponent(found[index + 1] ?? '');
        } catch {
          decodable = false;
        }
      });
      if (decodable) matches.push({ route, pathParameters });
    }
    // A literal segment beats a parameter (`/v1/health/deep` over `/v1/health/{x}`), as in API Gateway.
    return matches.sort((a, b) => literalSegments(b.route) - literalSegments(a.route));
  }

  return {
    /** The route for this method and path, if any. */
    match(method: string, path: string): RouteMatch | undefined {
      return matchPath(path).find((candidate) => candidate.route.method === method.toUpperCase());
    },
    /** Methods the path supports, for a wrong-method answer. */
    allowedMethods(path: string): string[] {
      return [...new Set(matchPath(path).map((candidate) => candidate.route.method))];
    },
  };
}

function literalSegments(route: RouteSpec): number {
  return route.path.split('/').filter((segment) => segment !== '' && !segment.startsWith('{')).length;
}
