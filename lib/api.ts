/**
 * The HTTP API (docs/ARCHITECTURE.md, Shape: "API Gateway (HTTP API) fronts one Lambda per route"):
 * one function and one `METHOD /path` route per entry of the route table (except the
 * `localOnly` ones), plus the `$default` route, which answers NOT_FOUND for every other
 * method and path.
 *
 * The API, its stage and the `$default` route live in the root stack; each area of routes
 * (route-areas.ts) is a nested stack holding its functions, routes and function alarms, so no
 * template nears CloudFormation's resource limit however many routes the table grows.
 *
 * There is no API Gateway authorizer: each handler checks the caller's token and role against
 * its route's `auth` (route-spec.ts, docs/API.md §5), the same code that runs locally.
 */
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  HttpMethod as ApiMethod,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { NestedStack } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { isDeployed, type RouteSpec } from '../lambdas/routes/route-spec.js';
import { NOT_FOUND_FUNCTION } from './bundling.js';
import type { LedgerAlarms } from './alarms.js';
import { LedgerFunction, type FunctionUse } from './function.js';
import type { FunctionBundles } from './function-code.js';
import { routeAreas } from './route-areas.js';

/**
 * Stage-wide ceiling, a backstop against floods that reach no handler; the per-organization
 * limit of docs/API.md §8 (RATE_LIMITED with Retry-After) is enforced in the handlers.
 */
export const STAGE_THROTTLE = { rateLimit: 1000, burstLimit: 2000 } as const;

/** API Gateway HTTP APIs give up on an integration after 30 s; a longer Lambda timeout is wasted. */
export const MAX_INTEGRATION_SECONDS = 30;

/**
 * Memory of a route's function. Lambda CPU grows with memory, and `POST /v1/operations` is
 * the hot path (docs/ARCHITECTURE.md, Performance budget: signature verify, hashes, a transaction, two
 * S3 puts, a KMS signature), so it gets more. A route may set `memorySize` itself.
 */
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
  /** The code of every function (one bundle per route id and the `$default` route's). */
  readonly bundles: FunctionBundles;
  readonly environment: Readonly<Record<string, string>>;
  /** Every function gets its error and throttle alarms. */
  readonly alarms: LedgerAlarms;
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
  /** The nested stacks of the route areas. */
  readonly areas: readonly NestedStack[];

  constructor(scope: Construct, id: string, props: LedgerApiProps) {
    super(scope, id);
    const notFound = new LedgerFunction(this, NOT_FOUND_FUNCTION, {
      code: props.bundles.code(NOT_FOUND_FUNCTION),
      description: 'agent-ledger $default route: NOT_FOUND for unknown paths and methods',
      environment: props.environment,
    });
    props.alarms.watchFunction(notFound, NOT_FOUND_FUNCTION);

    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'agent-ledger HTTP API (docs/API.md §4)',
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
    const areas: NestedStack[] = [];
    // Local-only routes (route-spec.ts) are development tools such as the development OAuth
    // provider, which signs in as anyone: they must never exist in AWS.
    for (const area of routeAreas(props.routes.filter(isDeployed))) {
      const stack = new NestedStack(this, area.id, { description: `agent-ledger routes: ${area.routes.map((spec) => spec.id).join(', ')}`.slice(0, 1024) });
      areas.push(stack);
      for (const spec of area.routes) {
        if ((spec.timeoutSeconds ?? 0) > MAX_INTEGRATION_SECONDS) {
          throw new Error(
            `route ${spec.id}: timeoutSeconds ${spec.timeoutSeconds} exceeds the ${MAX_INTEGRATION_SECONDS} s an HTTP API ` +
              'waits for an integration; move the work to a worker (lambdas/workers/) instead',
          );
        }
        const fn = new LedgerFunction(stack, spec.id, {
          code: props.bundles.code(spec.id),
          description: `agent-ledger ${spec.method} ${spec.path}`,
          environment: props.environment,
          memorySize: memoryOf(spec),
          ...(spec.timeoutSeconds === undefined ? {} : { timeoutSeconds: spec.timeoutSeconds }),
        });
        props.alarms.watchFunction(fn, spec.id);
        const route = new HttpRoute(stack, `${spec.id}Route`, {
          httpApi: this.httpApi,
          routeKey: HttpRouteKey.with(spec.path, ApiMethod[spec.method]),
          integration: new HttpLambdaIntegration(`${spec.id}Integration`, fn.function),
        });
        routes.push({ spec, function: fn, route });
      }
    }
    this.areas = areas;
    this.routes = routes;
    this.throttleRoutes(props.routeThrottles ?? {});
    this.notFoundFunction = notFound;
    this.functions = [
      // Every authenticated request is counted against its organization's rate limit
      // (lambdas/http/authenticate.ts), read-only routes included, and records the use of its
      // API token (lambdas/domain/auth/caller-lookup.ts).
      ...routes.map(({ spec, function: fn }) => ({ function: fn, uses: spec.auth === 'public' ? spec.uses : [...spec.uses, 'table:rate-counter' as const, 'table:token-use' as const] })),
      { function: notFound, uses: [] },
    ];
  }

  /**
   * Route settings of the stage. API Gateway refuses settings for a route key it does not
   * know yet, and the routes live in their area's nested stack: the stage waits for each
   * throttled route. A route this stack does not deploy has nothing to throttle.
   */
  private throttleRoutes(throttles: NonNullable<LedgerApiProps['routeThrottles']>): void {
    const throttled = this.routes.filter(({ spec }) => routeKeyOf(spec) in throttles);
    if (throttled.length === 0) return;
    for (const { route } of throttled) this.stage.node.addDependency(route);
    (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      throttled.map(({ spec }) => {
        const { rateLimit, burstLimit } = throttles[routeKeyOf(spec)]!;
        // RouteSettings is untyped JSON in CDK, passed through as is: CloudFormation's own
        // (PascalCase) property names, which the camelCase ones of CfnStage's types are not.
        return [routeKeyOf(spec), { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit }];
      }),
    );
  }

  /** The API's base address ({base_url} of docs/API.md). */
  get url(): string {
    return this.stage.url;
  }
}

function memoryOf(route: RouteSpec): number | undefined {
  const own = (route as RouteSpec & { readonly memorySize?: number }).memorySize;
  return own ?? MEMORY_BY_ROUTE[routeKeyOf(route)];
}

/** API Gateway's route key of a route (`METHOD /path`). */
function routeKeyOf(route: RouteSpec): string {
  return `${route.method} ${route.path}`;
}
