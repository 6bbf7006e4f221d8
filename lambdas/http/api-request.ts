/** What a route handler receives: the validated request, typed from its route's schemas. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { Caller, OrgCaller } from '../domain/auth/caller.js';
import type { RouteSpec } from '../routes/route-spec.js';

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

type RequestPart<R extends RouteSpec, K extends 'params' | 'query' | 'body'> = R['request'] extends infer Q
  ? Q extends Record<K, infer S>
    ? Infer<S>
    : undefined
  : undefined;

/** The caller a route's auth guarantees (docs/API.md §5): role-guarded routes always have an organization. */
type CallerFor<R extends RouteSpec> = R['auth'] extends 'public'
  ? null
  : R['auth'] extends 'optional'
    ? Caller | null
    : R['auth'] extends 'user' | 'session' | 'api_token'
      ? Caller
      : OrgCaller;

export interface ApiRequest<R extends RouteSpec = RouteSpec> {
  readonly route: R;
  readonly caller: CallerFor<R>;
  readonly requestId: string;
  readonly params: RequestPart<R, 'params'>;
  readonly query: RequestPart<R, 'query'>;
  readonly body: RequestPart<R, 'body'>;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly cookies: readonly string[];
  readonly event: APIGatewayProxyEventV2;
}

type ResponseBody<R extends RouteSpec> = R['response']['body'] extends z.ZodType
  ? z.input<R['response']['body']>
  : string | Uint8Array;

/** A handler's answer; status defaults to the route's success status. */
export interface ApiResult<R extends RouteSpec = RouteSpec> {
  status?: number;
  body: ResponseBody<R>;
  headers?: Record<string, string>;
  cookies?: string[];
}
