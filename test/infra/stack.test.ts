/**
 * The CDK stack (lib/) checked against DESIGN.md and the route and worker tables: one
 * function per route and worker, each with exactly the environment config.ts reads and
 * exactly the permissions its `uses` name; the data, keys, queues and schedule as designed;
 * and the AWS Solutions checks of cdk-nag passing with every accepted finding explained.
 *
 * Assets are not bundled (context aws:cdk:bundling-stacks = []) and handlers are stubs, so
 * this runs in seconds and does not depend on handler code.
 */
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_DESIGN } from '../../lambdas/store/table-design.js';
import { parseConfig } from '../../lambdas/config.js';
import type { Resource, RouteSpec } from '../../lambdas/routes/route-spec.js';
import { routeList, routes } from '../../lambdas/routes/routes.js';
import type { WorkerSpec } from '../../lambdas/workers/worker-spec.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { LedgerStack } from '../../lib/ledger-stack.js';
import {
  actionsOf,
  cdkContext,
  logicalId,
  resolvedValue,
  statementsOfFunction,
  StubLambdas,
  synthesize,
  type Statement,
  type Synthesized,
} from './support.js';

// Template JSON is walked ad hoc in assertions; a typed model of CloudFormation would add nothing.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type CfnResource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

/** lambdas/config.ts reads exactly these (LEDGER_TSA_URL only when a TSA is configured). */
const FUNCTION_ENVIRONMENT = [
  'LEDGER_TABLE',
  'LEDGER_DATA_BUCKET',
  'LEDGER_ANCHORS_BUCKET',
  'LEDGER_SIGNER_KEY_ID',
  'LEDGER_SECRETS_KEY_ID',
  'LEDGER_EVENTS_QUEUE_URL',
  'LEDGER_EXPORTS_QUEUE_URL',
  'LEDGER_DELIVERIES_QUEUE_URL',
  'LEDGER_DELIVERIES_DEAD_LETTER_QUEUE_URL',
  'LEDGER_EPOCH_MS',
  'LEDGER_EPOCH_GRACE_MS',
  'LEDGER_RATE_LIMIT_RPS',
  'LEDGER_MAX_PAYLOAD_BYTES',
  'NODE_OPTIONS',
  'POWERTOOLS_SERVICE_NAME',
].sort();

const EVERY_RESOURCE: readonly Resource[] = [
  'table:read',
  'table:write',
  'data:read',
  'data:write',
  'anchors:read',
  'anchors:write',
  'signer',
  'secrets:encrypt',
  'secrets:decrypt',
  'cursors',
  'queue:events',
  'queue:exports',
  'queue:deliveries',
  'identity',
];

/** The AWS service each resource's grant speaks to. */
const SERVICE_OF: Record<Resource, string | undefined> = {
  'table:read': 'dynamodb',
  'table:write': 'dynamodb',
  'data:read': 's3',
  'data:write': 's3',
  'anchors:read': 's3',
  'anchors:write': 's3',
  signer: 'kms',
  'secrets:encrypt': 'kms',
  'secrets:decrypt': 'kms',
  cursors: 'kms',
  'queue:events': 'sqs',
  'queue:exports': 'sqs',
  'queue:deliveries': 'sqs',
  identity: 'cognito-idp',
};

/** What functions of routes that use 'identity' get on top (test/infra/identity.test.ts checks the values). */
const IDENTITY_ENVIRONMENT = ['LEDGER_IDENTITY', 'LEDGER_USER_POOL_ID', 'LEDGER_USER_POOL_CLIENT_ID'];

const DYNAMODB_WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/** One route per Resource kind: every grant, and every nag finding a grant can cause. */
const EVERY_USE_ROUTES: RouteSpec[] = EVERY_RESOURCE.map((use, index) => ({
  id: `Uses${index}`,
  method: 'POST',
  path: `/test/uses/${index}`,
  handler: `test/uses-${index}`,
  auth: ['org_owner'],
  summary: `uses ${use}`,
  response: { status: 200, body: null },
  uses: [use],
}));

/** workerList is still empty; these stand-ins exercise both trigger kinds. */
const STAND_IN_WORKERS: WorkerSpec[] = [
  {
    id: 'DeliverWebhooks',
    handler: 'deliver-webhooks',
    trigger: { kind: 'queue', queue: 'events', batchSize: 10 },
    uses: ['table:read', 'secrets:decrypt'],
    timeoutSeconds: 30,
  },
  {
    id: 'SealEpoch',
    handler: 'seal-epoch',
    trigger: { kind: 'schedule' },
    uses: ['table:write', 'anchors:write', 'signer'],
    timeoutSeconds: 120,
  },
];

/** What the CDK app deploys: every route but the local-only ones (route-spec.ts). */
const deployedRoutes = routeList.filter((spec) => spec.localOnly !== true);

const TSA_URL = 'https://tsa.example.com/tsr';
/** RFC 8032 test 1 and 2 public keys, as retired receipt keys. */
const RETIRED_KEYS = ['11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', 'PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw'];

let stubs: StubLambdas;
/** The stack as `cdk synth` builds it from the real route and worker tables. */
let synth: Synthesized;
let resources: Record<string, CfnResource>;
/** A variant: a route per Resource kind, the stand-in workers, and non-default knobs. */
let variant: Synthesized;

beforeAll(() => {
  stubs = new StubLambdas([...routeList, ...EVERY_USE_ROUTES], [...workerList, ...STAND_IN_WORKERS]);
  synth = synthesize({ lambdasDir: stubs.dir });
  resources = synth.template.toJSON().Resources as Record<string, CfnResource>;
  variant = synthesize(
    { lambdasDir: stubs.dir, routes: EVERY_USE_ROUTES, workers: STAND_IN_WORKERS },
    { epochRetentionDays: '30', tsaUrl: TSA_URL, retiredServiceKeys: RETIRED_KEYS.join(',') },
  );
});

afterAll(() => stubs?.remove());

function ofType(type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** The service's own functions: CDK helper functions (custom resources) use other runtimes. */
function ledgerFunctions(): [string, CfnResource][] {
  return ofType('AWS::Lambda::Function').filter(
    ([, fn]) => fn.Properties.Runtime === 'nodejs22.x' && JSON.stringify(fn.Properties.Architectures) === '["arm64"]',
  );
}

function routeFunctionId(spec: RouteSpec): string {
  const route = synth.stack.api.routes.find((candidate) => candidate.spec.id === spec.id);
  if (!route) throw new Error(`no function for route ${spec.id}`);
  return logicalId(route.function.function);
}

const ref = (construct: IConstruct) => ({ Ref: logicalId(construct) });
const arn = (construct: IConstruct) => ({ 'Fn::GetAtt': [logicalId(construct), 'Arn'] });
const sorted = (statements: Statement[]) =>
  statements
    .map((statement) => ({ ...statement, Action: [...actionsOf(statement)].sort() }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('functions', () => {
  it('has one function per route, per worker, and the not-found function, nothing else on Node 22/arm64', () => {
    expect(ledgerFunctions()).toHaveLength(deployedRoutes.length + workerList.length + 1);
    expect(synth.stack.functions).toHaveLength(deployedRoutes.length + workerList.length + 1);
  });

  it('never deploys a local-only route: the development sign-in (DevOAuthContinue, DevOAuthAuthorize) is not in AWS', () => {
    const localOnly = routeList.filter((spec) => spec.localOnly === true);
    expect(localOnly.map((spec) => spec.id).sort()).toEqual(['DevOAuthAuthorize', 'DevOAuthContinue']);
    const template = JSON.stringify(synth.template.toJSON());
    for (const spec of localOnly) {
      expect(synth.stack.api.routes.some((route) => route.spec.id === spec.id), spec.id).toBe(false);
      expect(template, spec.id).not.toContain(spec.id);
      expect(template, spec.id).not.toContain(spec.path);
    }
  });

  it('gives every function exactly the environment config.ts reads, pointing at this stack', () => {
    const { data, keys, queues } = synth.stack;
    const identityFunctions = new Set(
      synth.stack.functions.filter(({ uses }) => uses.includes('identity')).map(({ function: fn }) => logicalId(fn.function)),
    );
    const apiFunctions = new Set(synth.stack.api.functions.map(({ function: fn }) => logicalId(fn.function)));
    for (const [id, fn] of ledgerFunctions()) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      const expected = [
        ...FUNCTION_ENVIRONMENT,
        ...(identityFunctions.has(id) ? IDENTITY_ENVIRONMENT : []),
        ...(apiFunctions.has(id) ? ['LEDGER_PUBLIC_URL'] : []),
      ].sort();
      expect(Object.keys(variables).sort(), id).toEqual(expected);
      expect(variables, id).toMatchObject({
        LEDGER_TABLE: ref(data.table),
        LEDGER_DATA_BUCKET: ref(data.dataBucket),
        LEDGER_ANCHORS_BUCKET: ref(data.anchorsBucket),
        LEDGER_SIGNER_KEY_ID: arn(keys.signer),
        LEDGER_SECRETS_KEY_ID: arn(keys.secrets),
        LEDGER_EVENTS_QUEUE_URL: ref(queues.queues.events),
        LEDGER_EXPORTS_QUEUE_URL: ref(queues.queues.exports),
        LEDGER_DELIVERIES_QUEUE_URL: ref(queues.queues.deliveries),
        LEDGER_DELIVERIES_DEAD_LETTER_QUEUE_URL: ref(queues.deadLetterQueues.deliveries),
        LEDGER_EPOCH_MS: '300000',
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'agent-ledger',
      });
      // With the deploy-time references filled in, config.ts accepts the environment: the
      // function boots.
      const resolved = Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [name, typeof value === 'string' ? value : resolvedValue(name)]),
      );
      expect(() => parseConfig(resolved), id).not.toThrow();
    }
  });

  it('builds links on the console distribution (LEDGER_PUBLIC_URL), the custom domain when context publicUrl names one', () => {
    const variables = (stack: Synthesized, spec: RouteSpec) => {
      const route = stack.stack.api.routes.find((candidate) => candidate.spec.id === spec.id)!;
      return stack.template.toJSON().Resources[logicalId(route.function.function)].Properties.Environment.Variables as Record<string, unknown>;
    };
    // The console's CloudFront origin also carries the API (lib/console.ts), so mailed links open the console.
    // The distribution is in the console's nested stack, whose output hands its domain up.
    const publicUrl = JSON.stringify(variables(synth, routes.signUp).LEDGER_PUBLIC_URL);
    const [nestedStack] = Object.keys(synth.template.findResources('AWS::CloudFormation::Stack'));
    expect(publicUrl).toContain(`"Fn::GetAtt":["${nestedStack}",`);
    expect(publicUrl).toMatch(/"https:\/\/",\{"Fn::GetAtt":\["[^"]+","Outputs\.[^"]*Distribution[^"]*DomainName"\]\}/);
    const custom = synthesize({ lambdasDir: stubs.dir, routes: [routes.signUp] }, { publicUrl: 'https://ledger.example.com/' });
    expect(variables(custom, routes.signUp).LEDGER_PUBLIC_URL).toBe('https://ledger.example.com');
  });

  it('sizes each route function from its route: memory, timeout, tracing, own log group', () => {
    for (const spec of deployedRoutes) {
      const fn = resources[routeFunctionId(spec)]!;
      const memory = spec.method === 'POST' && spec.path === '/v1/operations' ? 1024 : 512;
      expect(fn.Properties, spec.id).toMatchObject({
        Handler: 'index.handler',
        MemorySize: memory,
        Timeout: spec.timeoutSeconds ?? 10,
        TracingConfig: { Mode: 'Active' },
      });
      const logGroupId = fn.Properties.LoggingConfig.LogGroup.Ref as string;
      expect(resources[logGroupId]?.Properties.RetentionInDays, spec.id).toBe(365);
    }
  });
});

describe('http api', () => {
  it('refuses a route timeout longer than an HTTP API waits for its integration', () => {
    const slow: RouteSpec = { ...routes.health, id: 'Slow', timeoutSeconds: 31 };
    const app = new App({ context: cdkContext(), outdir: join(stubs.dir, 'cdk.out-slow') });
    expect(() => new LedgerStack(app, 'Slow', { lambdasDir: stubs.dir, routes: [slow] })).toThrow(/timeoutSeconds 31/);
  });

  it('routes every METHOD /path of the route table to its own function, and $default to not-found', () => {
    const apiRoutes = ofType('AWS::ApiGatewayV2::Route');
    const keys = apiRoutes.map(([, route]) => route.Properties.RouteKey as string).sort();
    expect(keys).toEqual([...deployedRoutes.map((spec) => `${spec.method} ${spec.path}`), '$default'].sort());

    const targetFunction = (routeKey: string): string => {
      const [, route] = apiRoutes.find(([, candidate]) => candidate.Properties.RouteKey === routeKey)!;
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
      return resources[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
    };
    for (const spec of deployedRoutes) expect(targetFunction(`${spec.method} ${spec.path}`)).toBe(routeFunctionId(spec));
    expect(targetFunction('$default')).toBe(logicalId(synth.stack.api.notFoundFunction.function));
  });

  it('logs access on the $default stage and throttles it', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] }, Format: Match.anyValue() },
      DefaultRouteSettings: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 },
    });
  });

  it('outputs the console URL, the API URL, the table and the bucket names', () => {
    expect(Object.keys(synth.template.toJSON().Outputs).sort()).toEqual(
      ['AnchorsBucketName', 'ApiUrl', 'ConsoleUrl', 'DataBucketName', 'TableName'].sort(),
    );
  });
});

describe('data', () => {
  it('builds the table of TABLE_DESIGN: on demand, PITR, deletion protection, encrypted, TTL, retained', () => {
    const [[, table], ...others] = ofType('AWS::DynamoDB::Table') as [[string, CfnResource]];
    expect(others).toEqual([]);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: TABLE_DESIGN.ttlAttribute, Enabled: true },
      KeySchema: [
        { AttributeName: TABLE_DESIGN.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_DESIGN.sortKey, KeyType: 'RANGE' },
      ],
    });
    const indexes = table.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown }[];
    expect(indexes).toHaveLength(TABLE_DESIGN.globalIndexes.length);
    const projections = (table.Properties.GlobalSecondaryIndexes as { Projection: { ProjectionType: string } }[]).map((index) => index.Projection.ProjectionType);
    expect(projections).toEqual(TABLE_DESIGN.globalIndexes.map((index) => index.projection.type));
    expect(indexes.map(({ IndexName, KeySchema }) => ({ IndexName, KeySchema }))).toEqual(
      TABLE_DESIGN.globalIndexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
      })),
    );
  });

  it('keeps every bucket private, encrypted, retained and TLS-only', () => {
    // data, anchors and access logs here; the console's site and CloudFront logs in its nested stack (lib/console.ts).
    const stacks = [resources, Template.fromStack(synth.stack.console).toJSON().Resources as Record<string, CfnResource>];
    const buckets = stacks.map((all) => Object.entries(all).filter(([, resource]) => resource.Type === 'AWS::S3::Bucket'));
    expect(buckets.map((list) => list.length)).toEqual([3, 2]);
    for (const [index, all] of stacks.entries()) {
      const policies = Object.entries(all).filter(([, resource]) => resource.Type === 'AWS::S3::BucketPolicy');
      for (const [id, bucket] of buckets[index]!) {
        expect(bucket.DeletionPolicy, id).toBe('Retain');
        expect(bucket.Properties.PublicAccessBlockConfiguration, id).toEqual({
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        });
        expect(bucket.Properties.BucketEncryption, id).toBeDefined();
        const policy = policies.find(([, candidate]) => candidate.Properties.Bucket.Ref === id);
        expect(policy?.[1].Properties.PolicyDocument.Statement, id).toContainEqual(
          expect.objectContaining({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        );
      }
    }
  });

  it('versions the data and anchors buckets and logs their access to the logs bucket', () => {
    const { dataBucket, anchorsBucket, logsBucket } = synth.stack.data;
    for (const bucket of [dataBucket, anchorsBucket]) {
      expect(resources[logicalId(bucket)]!.Properties).toMatchObject({
        VersioningConfiguration: { Status: 'Enabled' },
        LoggingConfiguration: { DestinationBucketName: ref(logsBucket) },
      });
    }
  });

  it('locks anchors in COMPLIANCE mode for epochRetentionDays (default 365)', () => {
    expect(resources[logicalId(synth.stack.data.anchorsBucket)]!.Properties).toMatchObject({
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 365 } },
      },
    });
    expect(resources[logicalId(synth.stack.data.dataBucket)]!.Properties.ObjectLockEnabled).toBeUndefined();
  });
});

describe('keys, queues, schedule', () => {
  it('signs receipts with an Ed25519 KMS key and encrypts secrets with a rotated symmetric key', () => {
    const { signer, secrets } = synth.stack.keys;
    expect(resources[logicalId(signer)]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: { KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY' },
    });
    expect(resources[logicalId(secrets)]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: { EnableKeyRotation: true },
    });
  });

  it('gives the events, deliveries and exports queues encrypted, TLS-only dead-letter queues after 5 receives', () => {
    const { queues, deadLetterQueues } = synth.stack.queues;
    // Three queues with their dead-letter queues, plus the stream worker's on-failure destination (lib/workers.ts).
    expect(ofType('AWS::SQS::Queue')).toHaveLength(7);
    for (const name of ['events', 'deliveries', 'exports'] as const) {
      expect(resources[logicalId(queues[name])]!.Properties).toMatchObject({
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: arn(deadLetterQueues[name]), maxReceiveCount: 5 },
      });
      expect(resources[logicalId(deadLetterQueues[name])]!.Properties.SqsManagedSseEnabled).toBe(true);
    }
    const queuePolicies = ofType('AWS::SQS::QueuePolicy');
    for (const queue of [...Object.values(queues), ...Object.values(deadLetterQueues)]) {
      const policy = queuePolicies.find(([, candidate]) =>
        (candidate.Properties.Queues as unknown[]).some((queueRef) => JSON.stringify(queueRef) === JSON.stringify(ref(queue))),
      );
      expect(policy?.[1].Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('runs the epoch schedule every 5 minutes', () => {
    synth.template.resourceCountIs('AWS::Events::Rule', 1);
    synth.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
  });
});

describe('workers', () => {
  const workerFunctionId = (id: string) =>
    logicalId(variant.stack.workers.node.findChild(id).node.findChild('Function'));

  it('consumes a queue in batches, reporting item failures, with a visibility timeout of 6x the timeout', () => {
    const { queues } = variant.stack.queues;
    variant.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: workerFunctionId('DeliverWebhooks') },
      EventSourceArn: arn(queues.events),
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(variant.template.toJSON().Resources[logicalId(queues.events)].Properties.VisibilityTimeout).toBe(180);
  });

  it('runs schedule workers from the 5-minute rule', () => {
    variant.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [workerFunctionId('SealEpoch'), 'Arn'] } })],
    });
  });

  it('gives workers their uses as grants', () => {
    const actions = statementsOfFunction(variant.template, workerFunctionId('SealEpoch')).flatMap(actionsOf);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:PutItem', 's3:PutObject', 'kms:Sign']));
    expect(actions.filter((action) => action.startsWith('sqs:'))).toEqual([]);
  });
});

describe('grants', () => {
  const logsAndTraces = (fnId: string): Statement[] => [
    {
      Effect: 'Allow',
      Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      Resource: { 'Fn::GetAtt': [resources[fnId]!.Properties.LoggingConfig.LogGroup.Ref, 'Arn'] },
    },
    { Effect: 'Allow', Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Resource: '*' },
  ];

  it('keeps each function\'s grants inside its role (lib/inline-role.ts): no separate policy resources', () => {
    expect(ofType('AWS::IAM::Policy')).toEqual([]);
    for (const [id] of ledgerFunctions()) expect(statementsOfFunction(synth.template, id).length, id).toBeGreaterThan(0);
  });

  it('lets a route with no uses (Health) write its own logs and traces, nothing more', () => {
    const fnId = routeFunctionId(routes.health);
    expect(routes.health.uses).toEqual([]);
    expect(sorted(statementsOfFunction(synth.template, fnId))).toEqual(sorted(logsAndTraces(fnId)));
  });

  it('lets Jwks (uses: signer) sign and read the public key of the signer key only, and touch no table', () => {
    const fnId = routeFunctionId(routes.jwks);
    const statements = statementsOfFunction(synth.template, fnId);
    expect(sorted(statements)).toEqual(
      sorted([
        ...logsAndTraces(fnId),
        {
          Effect: 'Allow',
          Action: ['kms:DescribeKey', 'kms:GetPublicKey', 'kms:Sign'],
          Resource: arn(synth.stack.keys.signer),
        },
      ]),
    );
    expect(statements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
  });

  it('lets DeepHealth read (never write) the table and the data bucket, use the signer and reach the events queue', () => {
    const statements = statementsOfFunction(synth.template, routeFunctionId(routes.deepHealth));
    const actions = statements.flatMap(actionsOf);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 's3:List*', 'kms:DescribeKey', 'sqs:GetQueueAttributes']));
    expect(actions.filter((action) => DYNAMODB_WRITES.includes(action) || action.startsWith('s3:Put'))).toEqual([]);
  });

  it('grants each route exactly the services its uses name, and writes only with a write use', () => {
    for (const spec of deployedRoutes) {
      const actions = statementsOfFunction(synth.template, routeFunctionId(spec)).flatMap(actionsOf);
      const services = new Set(actions.map((action) => action.split(':')[0]));
      services.delete('logs');
      services.delete('xray');
      const expected = new Set(spec.uses.map((use) => SERVICE_OF[use]).filter((service) => service !== undefined));
      expect([...services].sort(), spec.id).toEqual([...expected].sort());
      if (!spec.uses.includes('table:write')) {
        expect(actions.filter((action) => DYNAMODB_WRITES.includes(action)), spec.id).toEqual([]);
      }
      if (!spec.uses.includes('data:write') && !spec.uses.includes('anchors:write')) {
        expect(actions.filter((action) => action.startsWith('s3:Put')), spec.id).toEqual([]);
      }
    }
  });

  it('grants "*" resources only for X-Ray, and no function may delete objects or use service-wide actions', () => {
    for (const [id] of ledgerFunctions()) {
      for (const statement of statementsOfFunction(synth.template, id)) {
        const actions = actionsOf(statement);
        // X-Ray and, for the stream worker's event source, dynamodb:ListStreams support no resource-level permissions.
        if (statement.Resource === '*') expect(actions.every((action) => action.startsWith('xray:') || action === 'dynamodb:ListStreams'), id).toBe(true);
        expect(actions.filter((action) => /^s3:Delete|:\*$/.test(action)), id).toEqual([]);
      }
    }
  });
});

describe('settings', () => {
  it('takes the anchors retention, the TSA and retired receipt keys from context', () => {
    variant.template.hasResourceProperties('AWS::S3::Bucket', {
      ObjectLockConfiguration: { Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 30 } } },
    });
    variant.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { LEDGER_TSA_URL: TSA_URL, LEDGER_RETIRED_SERVICE_KEYS: RETIRED_KEYS.join(',') } },
    });
  });

  it('rejects a retired receipt key that is not a base64url Ed25519 public key', () => {
    const app = new App({ context: cdkContext({ retiredServiceKeys: 'not-a-key' }), outdir: join(stubs.dir, 'cdk.out-badkey') });
    expect(() => new LedgerStack(app, 'BadKey', { lambdasDir: stubs.dir })).toThrow(/retiredServiceKeys/);
  });

  it('rejects a malformed knob when the stack is built', () => {
    const app = new App({ context: cdkContext({ epochRetentionDays: 'a year' }), outdir: join(stubs.dir, 'cdk.out-bad') });
    expect(() => new LedgerStack(app, 'Bad', { lambdasDir: stubs.dir })).toThrow(/epochRetentionDays/);
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  it('reports no unacknowledged finding for the stack', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('has the findings of every Resource kind and of both worker kinds acknowledged, so new entries synthesize', () => {
    const report = new AwsSolutionsChecks().validateScope(variant.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('runs as a Validations plugin (as in bin/ledger.ts) that fails synthesis on an unacknowledged finding', () => {
    const app = new App({ context: cdkContext(), outdir: join(stubs.dir, 'cdk.out') });
    const stack = new LedgerStack(app, 'AgentLedger', { lambdasDir: stubs.dir, routes: [] });
    // A bucket without server access logs: AwsSolutions-S1.
    new Bucket(stack, 'UnloggedBucket', { enforceSSL: true });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AgentLedger\/UnloggedBucket[\s\S]*AwsSolutions-S1/);
  });

  it('explains every acknowledgement in at least a sentence, on a resource rather than the whole stack', () => {
    const acknowledgements = [synth, variant].flatMap(({ app }) => app.node.findAll()).flatMap((construct) =>
      construct.node.metadata
        .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) =>
          Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({ construct, id, reason })),
        ),
    );
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const { construct, id, reason } of acknowledgements) {
      expect(construct instanceof Stack || construct instanceof App, `${id} on ${construct.node.path}`).toBe(false);
      expect(reason.length, `${id} on ${construct.node.path}`).toBeGreaterThanOrEqual(60);
      expect(reason.split(/\s+/).length, `${id} on ${construct.node.path}`).toBeGreaterThanOrEqual(10);
      expect(reason, `${id} on ${construct.node.path}`).toMatch(/[.)]$/);
    }
  });
});
