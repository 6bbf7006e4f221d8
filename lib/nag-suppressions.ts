/**
 * Every cdk-nag (AwsSolutions) finding the stack accepts, each with the reason it is
 * accepted, in one place. cdk-nag 3 reads CDK's own acknowledgements
 * (`Validations.of(construct).acknowledge`); an acknowledgement applies to its construct
 * and everything below it, and a finding with a detail (`IAM5[Resource::...]`) must be
 * acknowledged with exactly that detail, so each one here names the construct and the
 * detail as narrowly as the stack allows.
 *
 * Findings of the grants are derived from the same `uses` that produce the grants, so a new
 * route that uses an already-known resource needs no new entry here, while a new kind of
 * wildcard still fails `cdk synth` until someone writes down why it is acceptable.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { Resource, RouteSpec } from '../lambdas/routes/route-spec.js';
import type { LedgerFunction } from './function.js';
import type { LedgerApi } from './api.js';
import type { FunctionUse } from './function.js';
import { BUCKET_PARAMETERS } from './grants.js';
import { nagToken, valueIn } from './imports.js';
import type { LedgerResources } from './resources.js';

/** What the acknowledgements look at: the stack's functions, API routes and resources (ledger-stack.ts passes itself). */
export interface NagScope {
  readonly functions: readonly FunctionUse[];
  readonly api: Pick<LedgerApi, 'routes' | 'notFoundRoute'>;
  readonly resources: LedgerResources;
}

interface Acknowledgement {
  readonly id: string;
  readonly reason: string;
}

export function acknowledgeNagFindings(stack: NagScope): void {
  for (const { function: fn, uses } of stack.functions) {
    acknowledgeFunction(fn);
    for (const use of new Set(uses)) acknowledge(fn.role, grantFindings(fn, stack, use));
  }
  for (const { spec, route } of stack.api.routes) acknowledge(route, [routeAuthorization(spec)]);
  acknowledge(stack.api.notFoundRoute, [
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'The $default route catches unknown methods and paths and only answers NOT_FOUND in the error ' +
        'envelope (SPEC.md §7); it reads no data, so there is nothing to authorize.',
    },
  ]);
}

function acknowledge(scope: IConstruct, acknowledgements: readonly Acknowledgement[]): void {
  for (const acknowledgement of acknowledgements) Validations.of(scope).acknowledge(acknowledgement);
}

/** Findings every function has, whatever its route. */
function acknowledgeFunction(fn: LedgerFunction): void {
  acknowledge(fn.function, [
    {
      id: 'AwsSolutions-L1',
      reason:
        'Functions run Node.js 22 on purpose: the bundles are built for it (esbuild target node22) and the ' +
        'project is tested on Node 20/22; moving to a newer runtime changes the runtime and the bundle target ' +
        'together in lib/function.ts, as a reviewed upgrade rather than a side effect of a cdk-nag release.',
    },
  ]);
  acknowledge(fn.role, [
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no ' +
        'resource-level permissions, so IAM only accepts Resource "*" for them; the infra test checks that no ' +
        'other statement of any function role uses Resource "*".',
    },
  ]);
}

/** API Gateway has no authorizer: the handler authorizes from the route table (SPEC.md §5). */
function routeAuthorization(spec: RouteSpec): Acknowledgement {
  const reason =
    spec.auth === 'public'
      ? `${spec.method} ${spec.path} is public (auth "public" in lambdas/routes/routes.ts; SPEC.md §4.10 and §5 list ` +
        'the endpoints that take no credentials), so there is nothing for an authorizer to check.'
      : `${spec.method} ${spec.path} is authorized in its handler: the handler checks the Bearer session or API ` +
        `token and the route's auth (${describeAuth(spec)}) from lambdas/routes/routes.ts (SPEC.md §5), the same code ` +
        'the local stack runs, so AWS and local enforce identical rules; an API Gateway authorizer would be a ' +
        'second copy of that check.';
  return { id: 'AwsSolutions-APIG4', reason };
}

function describeAuth(spec: RouteSpec): string {
  return typeof spec.auth === 'string' ? spec.auth : `roles ${spec.auth.join(', ')}`;
}

/**
 * The wildcards each grant of grants.ts produces, with why each is acceptable: only the
 * objects of a bucket. Every other grant names its actions and resources one by one.
 */
function grantFindings(fn: LedgerFunction, stack: NagScope, use: Resource): Acknowledgement[] {
  const objects = (which: 'dataBucket' | 'anchorsBucket', name: string): Acknowledgement[] => {
    const bucket = nagToken(fn.role, valueIn(fn.role, BUCKET_PARAMETERS[which], stack.resources[which].bucketArn));
    return [
      {
        id: `AwsSolutions-IAM5[Resource::${bucket}/*]`,
        reason:
          `Object keys in the ${name} bucket are named at request time per operation, epoch or export, so object ` +
          'permissions (GetObject, and PutObject for writers; never delete) can only be granted on the key space of this ' +
          'one bucket; other buckets stay out of reach.',
      },
    ];
  };
  switch (use) {
    case 'data:read':
    case 'data:write':
      return objects('dataBucket', 'data');
    case 'anchors:read':
    case 'anchors:write':
      return objects('anchorsBucket', 'anchors');
    // Explicit actions on the table and its named indexes, one key, one queue or the user pool: no wildcard.
    case 'table:read':
    case 'table:write':
    case 'signer':
    case 'signer:public-key':
    case 'secrets:encrypt':
    case 'secrets:decrypt':
    case 'cursors':
    case 'queue:events':
    case 'queue:exports':
    case 'queue:deliveries':
    case 'identity':
      return [];
  }
}
