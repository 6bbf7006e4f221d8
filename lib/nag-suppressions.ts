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
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { Resource, RouteSpec } from '../lambdas/routes/route-spec.js';
import type { LedgerFunction } from './function.js';
import type { LedgerApi } from './api.js';
import type { LedgerConsole } from './console.js';
import type { FunctionUse } from './function.js';
import { BUCKET_PARAMETERS, ERASABLE_PREFIXES } from './grants.js';
import { nagToken, valueIn } from './imports.js';
import type { LedgerResources } from './resources.js';

/** What the acknowledgements look at: the stack's functions, API routes and resources (ledger-stack.ts passes itself). */
export interface NagScope {
  readonly functions: readonly FunctionUse[];
  readonly api: Pick<LedgerApi, 'routes' | 'notFoundRoute'>;
  readonly resources: LedgerResources;
  readonly console: LedgerConsole;
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
  acknowledgeConsole(stack.console);
  acknowledge(stack.api.notFoundRoute, [
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'The $default route catches unknown methods and paths and only answers NOT_FOUND in the error ' +
        'envelope (docs/API.md §7); it reads no data, so there is nothing to authorize.',
    },
  ]);
}

/** The console's distribution (lib/console.ts) and the CDK-provided function that copies its files into the bucket. */
function acknowledgeConsole(site: LedgerConsole): void {
  acknowledge(site.distribution, [
    {
      id: 'AwsSolutions-CFR1',
      reason: 'The console and API serve teams wherever they work; who may act is decided by sign-in and roles (docs/API.md §5), not by country.',
    },
    {
      id: 'AwsSolutions-CFR2',
      reason:
        'No WAF web ACL by default (it costs a monthly fee per ACL and rule): the API limits requests per organization and ' +
        'sign-ins per email and client address itself (SECURITY.md, Rules the service enforces). A deployment that wants WAF attaches one to the distribution.',
    },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'Without a custom domain the distribution uses the *.cloudfront.net certificate, whose viewer TLS policy CloudFront fixes ' +
        '(TLSv1 allowed for old clients); the session cookie is HttpOnly and the API refuses plain HTTP. A custom domain with ' +
        'minimumProtocolVersion TLSv1.2_2021 removes this.',
    },
  ]);
  // BucketDeployment's copy function is one singleton per stack, made and versioned by aws-cdk-lib.
  const copier = Stack.of(site).node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!copier) throw new Error('the console deployment function was not found (aws-cdk-lib changed its id?)');
  const bucketArn = `<${logicalId(site.bucket)}.Arn>/*`;
  const deploySteps = 'runs only during cdk deploy, to copy the console\'s built files from the CDK asset bucket into the console bucket';
  acknowledge(copier, [
    { id: 'AwsSolutions-L1', reason: `aws-cdk-lib's BucketDeployment picks this function's runtime; it ${deploySteps}.` },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: `The managed policy only lets the function write its own CloudWatch logs; it ${deploySteps}.`,
    },
    ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map((action) => ({
      id: `AwsSolutions-IAM5[Action::${action}]`,
      reason: `grantRead/grantReadWrite of the asset and console buckets (${action}); the function ${deploySteps}.`,
    })),
    { id: `AwsSolutions-IAM5[Resource::${bucketArn}]`, reason: `Every object of the console bucket, which holds nothing but the console; the function ${deploySteps}.` },
    {
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
      reason: `Read access to the CDK bootstrap asset bucket, where cdk deploy uploads the console's files; the function ${deploySteps}.`,
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: `cloudfront:CreateInvalidation and GetInvalidation, which take no resource-level permission; the function invalidates index.html after it ${deploySteps}.`,
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

/** API Gateway has no authorizer: the handler authorizes from the route table (docs/API.md §5). */
function routeAuthorization(spec: RouteSpec): Acknowledgement {
  const reason =
    spec.auth === 'public'
      ? `${spec.method} ${spec.path} is public (auth "public" in lambdas/routes/routes.ts; docs/API.md §4.10 and §5 list ` +
        'the endpoints that take no credentials), so there is nothing for an authorizer to check.'
      : `${spec.method} ${spec.path} is authorized in its handler: the handler checks the Bearer session or API ` +
        `token and the route's auth (${describeAuth(spec)}) from lambdas/routes/routes.ts (docs/API.md §5), the same code ` +
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
  /** data:erase and data:erase-exports: DeleteObjectVersion under the erasable key spaces only (grants.ts ERASABLE_PREFIXES). */
  const erasable = (prefixes: readonly string[]): Acknowledgement[] => {
    const bucket = nagToken(fn.role, valueIn(fn.role, BUCKET_PARAMETERS.dataBucket, stack.resources.dataBucket.bucketArn));
    return prefixes.map((prefix) => ({
      id: `AwsSolutions-IAM5[Resource::${bucket}/${prefix}]`,
      reason:
        `Erasure destroys every version of an object under ${prefix} of the data bucket (an erased payload, or an export file ` +
        'that held it), named at request time per operation or export; the grant is DeleteObjectVersion on that key space only.',
    }));
  };
  switch (use) {
    case 'data:read':
    case 'data:write':
      return objects('dataBucket', 'data');
    // POST /v1/operations/:id/erase-payload, the one route that deletes; the exports worker restarting an export.
    case 'data:erase':
      return erasable([ERASABLE_PREFIXES.payloads, ERASABLE_PREFIXES.exports]);
    case 'data:erase-exports':
      return erasable([ERASABLE_PREFIXES.exports]);
    case 'anchors:read':
    case 'anchors:write':
      return objects('anchorsBucket', 'anchors');
    // Explicit actions on the table and its named indexes, one key, one queue or the user pool: no wildcard.
    case 'table:read':
    case 'table:write':
    case 'table:rate-counter':
    case 'table:token-use':
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

function logicalId(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}
