/** Compiled in by vite.config.ts from the route table (build/route-roles.ts). */
declare const __ROUTE_ROLES__: Record<string, string | readonly string[]>;
