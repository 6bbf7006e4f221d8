/**
 * The HTTP API (DESIGN.md, Shape: "API Gateway (HTTP API) fronts one Lambda per route"):
 * one function and one `METHOD /path` route per entry of the route table (except the
 * `localOnly` ones), plus the `$default` route, which answers NOT_FOUND for every other
 * method and path.
 *
 * There is no API Gateway authorizer: each handler checks the caller's token and role against
 * its route's `auth` (route-spec.ts, SPEC.md §5), the same code that runs locally.
 */
import { join } from 'node:path';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import type {
  CfnStage} from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpApi,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  HttpMethod as ApiMethod,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { isDeployed, type RouteSpec } from '../lambdas/routes/route-spec.js';
import { LedgerFunction, type FunctionUse } from './function.js';

/**
 * Stage-wide ceiling, a backstop against floods that reach no handler; the per-organization
 * limit of SPEC.md §8 (RATE_LIMITED with Retry-After) is enforced in the handlers.
 */
export const STAGE_THROTTLE = { rateLimit: 1000, burstLimit: 2000 } as const;

/**
 * Memory of a route's function. Lambda CPU grows with memory, and `POST /v1/operations` is
 * the hot path (DESIGN.md, Performance budget: signature verify, hashes, a transaction, two
 * S3 puts, a KMS signature), so it gets more. A route may set `memorySize` itself.
 */
/** API Gateway HTTP APIs give up on an integration after 30 s; a longer Lambda timeout is wasted. */
export const MAX_INTEGRATION_SECONDS = 30;

const MEMORY_BY_ROUTE: Readonly<Record<string, number>> = { 'POST /v1/operations': 1024 };

/**
 * One JSON line per request with HTTP API context variables only (the REST API standard
 * format names variables HTTP APIs reject). No headers, so no tokens reach the log.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTimeEpoch',
    sourceIp: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    method: '$context.httpMethod',
    path: '$context.path',
    routeKey: '$context.routeKey',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationStatus: '$context.integrationStatus',
    integrationError: '$context.integrationErrorMessage',
    errorMessage: '$context.error.message',
  }),
);

export interface ApiRoute {
  readonly spec: RouteSpec;
  readonly function: LedgerFunction;
  readonly route: HttpRoute;
}

export interface LedgerApiProps {
  readonly routes: readonly RouteSpec[];
  /** Handler module of the `$default` route (routes.ts notFoundHandler). */
  readonly notFoundHandler: string;
  /** Directory holding `http/<handler>.ts`. */
  readonly lambdasDir: string;
  readonly environment: Readonly<Record<string, string>>;
  /** Per-route throttles (`METHOD /path` → rate and burst), below the stage-wide one. */
  readonly routeThrottles?: Readonly<Record<string, { readonly rateLimit: number; readonly burstLimit: number }>>;
}

export class LedgerApi extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  /** Every function of the API with what its route uses, for grants.ts. */
  readonly functions: readonly FunctionUse[];
  /** Each route of the table with its function and API Gateway route. */
  readonly routes: readonly ApiRoute[];
  /** The `$default` route and its function. */
  readonly notFoundRoute: HttpRoute;
  readonly notFoundFunction: LedgerFunction;

  constructor(scope: Construct, id: string, props: LedgerApiProps) {
    super(scope, id);
    const handlerEntry = (handler: string) => join(props.lambdasDir, 'http', `${handler}.ts`);

    const notFound = new LedgerFunction(this, 'NotFound', {
      entry: handlerEntry(props.notFoundHandler),
      description: 'agent-ledger $default route: NOT_FOUND for unknown paths and methods',
      environment: props.environment,
    });

    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'agent-ledger HTTP API (SPEC.md §4)',
      createDefaultStage: false,
    });
    this.notFoundRoute = new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.httpApi,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('NotFoundIntegration', notFound.function),
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_YEAR });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: STAGE_THROTTLE,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });

    const routes: ApiRoute[] = [];
    // Local-only routes (route-spec.ts) are development tools such as the development OAuth
    // provider, which signs in as anyone: they must never exist in AWS.
    for (const spec of props.routes.filter(isDeployed)) {
      if ((spec.timeoutSeconds ?? 0) > MAX_INTEGRATION_SECONDS) {
        throw new Error(
          `route ${spec.id}: timeoutSeconds ${spec.timeoutSeconds} exceeds the ${MAX_INTEGRATION_SECONDS} s an HTTP API ` +
            'waits for an integration; move the work to a worker (lambdas/workers/) instead',
        );
      }
      const fn = new LedgerFunction(this, spec.id, {
        entry: handlerEntry(spec.handler),
        description: `agent-ledger ${spec.method} ${spec.path}`,
        environment: props.environment,
        memorySize: memoryOf(spec),
        ...(spec.timeoutSeconds === undefined ? {} : { timeoutSeconds: spec.timeoutSeconds }),
      });
      const route = new HttpRoute(this, `${spec.id}Route`, {
        httpApi: this.httpApi,
        routeKey: HttpRouteKey.with(spec.path, ApiMethod[spec.method]),
        integration: new HttpLambdaIntegration(`${spec.id}Integration`, fn.function),
      });
      routes.push({ spec, function: fn, route });
    }
    this.routes = routes;
    const throttles = Object.entries(props.routeThrottles ?? {});
    if (throttles.length > 0) {
      (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
        throttles.map(([routeKey, { rateLimit, burstLimit }]) => [routeKey, { throttlingRateLimit: rateLimit, throttlingBurstLimit: burstLimit }]),
      );
    }
    this.notFoundFunction = notFound;
    this.functions = [
      ...routes.map(({ spec, function: fn }) => ({ function: fn, uses: spec.uses })),
      { function: notFound, uses: [] },
    ];
  }

  /** The API's base address ({base_url} of SPEC.md). */
  get url(): string {
    return this.stage.url;
  }
}

function memoryOf(route: RouteSpec): number | undefined {
  const own = (route as RouteSpec & { readonly memorySize?: number }).memorySize;
  return own ?? MEMORY_BY_ROUTE[`${route.method} ${route.path}`];
}
