/**
 * The shape of one entry of the route table (routes.ts). The local server, the CDK stack
 * and the OpenAPI document all read the table, so each entry is plain data plus zod schemas:
 * nothing here imports a handler.
 */
import type { z } from 'zod';
import type { Role } from '../shared/roles.js';

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Who may call a route (docs/API.md §4 "Auth" column, §5):
 * - `public`: anyone, no token looked at;
 * - `optional`: a session is used when present (get-session);
 * - `user`: any authenticated user, with or without an organization (me, onboarding);
 * - `session` / `api_token`: only that kind of token (docs/API.md §5 session-only and API-token-only);
 * - a role list: an organization member holding one of these roles.
 */
export type RouteAuth = 'public' | 'optional' | 'user' | 'session' | 'api_token' | readonly Role[];

/**
 * AWS resources a route's function touches. CDK turns each into exactly the matching grant
 * and environment variable, so a function gets no permission its route does not name.
 */
export type Resource =
  | 'table:read'
  | 'table:write'
  /**
   * The organization's request counter only (UpdateItem on the `<bucket>#RATE` partition,
   * domain/rate-limit/request-rate.ts): every authenticated route counts its request, read-only
   * routes included. lib/api.ts adds it to each route that is not public.
   */
  | 'table:rate-counter'
  | 'table:token-use'
  | 'data:read'
  | 'data:write'
  /**
   * Destroying, every version, an erased payload's object and the export files that held it
   * (POST /v1/operations/:id/erase-payload), nothing else.
   */
  | 'data:erase'
  /** Destroying, every version, an export's own files (the exports worker restarts an export a payload erasure reached). */
  | 'data:erase-exports'
  | 'anchors:read'
  | 'anchors:write'
  /**
   * Signing receipts with the service key: kms:Sign and its public key, or with
   * receiptSigner=envelope the receipt key's items and its wrapping key (lib/grants.ts).
   */
  | 'signer'
  /** The service key's public half only (the JWKS, the receipt check, the deep health probe). */
  | 'signer:public-key'
  | 'secrets:encrypt'
  | 'secrets:decrypt'
  /** Seal and open pagination cursors with the secrets key, under their own encryption context only. */
  | 'cursors'
  | 'queue:events'
  | 'queue:exports'
  | 'queue:deliveries'
  | 'identity';

interface RouteRequest {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

export interface RouteSpec {
  /** Stable identifier: the OpenAPI operationId and the CDK construct id. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway v2 path syntax, parameters in braces: `/v1/agents/{agent_id}`. */
  readonly path: string;
  /** Handler module under lambdas/http/, without extension; it exports `handler`. */
  readonly handler: string;
  readonly auth: RouteAuth;
  readonly summary: string;
  /** Rules beyond the summary, for the OpenAPI description (after the roles). */
  readonly description?: string;
  readonly request?: RouteRequest;
  /** Success status and body schema; null body means a raw (non-JSON) response such as a download. */
  readonly response: { status: number; body: z.ZodType | null; contentType?: string };
  readonly uses: readonly Resource[];
  /** Lambda timeout in seconds (default 10). */
  readonly timeoutSeconds?: number;
  /**
   * Served by the local stack only (`npm start`): the CDK app never deploys the route, so in
   * AWS its path reaches the `$default` route (NOT_FOUND). For development tools such as the
   * development OAuth provider, which signs in as anyone.
   */
  readonly localOnly?: true;
}

/** Whether the CDK app deploys the route (every route but the `localOnly` ones). */
export function isDeployed(route: RouteSpec): boolean {
  return route.localOnly !== true;
}

/** Identity function that keeps literal types while checking the entry's shape. */
export function route<const T extends RouteSpec>(spec: T): T {
  return spec;
}
