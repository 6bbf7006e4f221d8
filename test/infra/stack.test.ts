/**
 * The CDK stack (lib/) checked against docs/ARCHITECTURE.md and the route and worker tables: one
 * function per route and worker, each with exactly the environment config.ts reads (the
 * permissions are grants.test.ts's); the data, keys, queues and schedule as designed; and
 * the AWS Solutions checks of cdk-nag passing with every accepted finding explained.
 *
 * Assets are not bundled (context aws:cdk:bundling-stacks = []) and handlers are stubs, so
 * this runs in seconds and does not depend on handler code.
 */
import { join } from 'node:path';
import { App, type NestedStack, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_DESIGN } from '../../lambdas/store/table-design.js';
import { parseConfig } from '../../lambdas/config.js';
import type { RouteSpec } from '../../lambdas/routes/route-spec.js';
import { routeList, routes } from '../../lambdas/routes/routes.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { LedgerStack } from '../../lib/ledger-stack.js';
import {
  arnOf,
  defaultSynth,
  cdkContext,
  EVERY_KIND_WORKERS,
  EVERY_USE_ROUTES,
  everyTemplate,
  inRootTerms,
  logicalId,
  refOf,
  resolvedValue,
  resourceOf,
  StubLambdas,
  synthesize,
  templateOf,
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
  'LEDGER_NEW_KEYS_PER_MEMBER_PER_DAY',
  'LEDGER_ATTEMPTS_PER_AGENT_PER_DAY',
  'LEDGER_ATTEMPTS_PER_ORG_PER_DAY',
  'LEDGER_MAX_PAYLOAD_BYTES',
  'NODE_OPTIONS',
  'POWERTOOLS_SERVICE_NAME',
].sort();

/** What functions of routes that use 'identity' get on top (test/infra/identity.test.ts checks the values). */
const IDENTITY_ENVIRONMENT = ['LEDGER_IDENTITY', 'LEDGER_USER_POOL_ID', 'LEDGER_USER_POOL_CLIENT_ID'];

/** What the CDK app deploys: every route but the local-only ones (route-spec.ts). */
const deployedRoutes = routeList.filter((spec) => spec.localOnly !== true);

const TSA_URL = 'https://tsa.example.com/tsr';
/** RFC 8032 test 1 and 2 public keys, as retired receipt keys. */
const RETIRED_KEYS = ['11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', 'PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw'];
const BREAK_GLASS = 'arn:aws:iam::123456789012:role/ledger-break-glass';

let stubs: StubLambdas;
/** The stack as `cdk synth` builds it from the real route and worker tables. */
let synth: Synthesized;
/** The root template's resources. */
let resources: Record<string, CfnResource>;
/** A variant: a route per Resource kind, a worker per trigger kind, and non-default knobs. */
let variant: Synthesized;

beforeAll(() => {
  stubs = new StubLambdas([...routeList, ...EVERY_USE_ROUTES], [...workerList, ...EVERY_KIND_WORKERS]);
  synth = defaultSynth();
  resources = synth.template.toJSON().Resources as Record<string, CfnResource>;
  variant = synthesize(
    { lambdasDir: stubs.dir, routes: EVERY_USE_ROUTES, workers: EVERY_KIND_WORKERS },
    {
      epochRetentionDays: '30',
      tsaUrl: TSA_URL,
      retiredServiceKeys: RETIRED_KEYS.join(','),
      breakGlassRoleArn: BREAK_GLASS,
      dataNoncurrentVersionDays: '30',
      tableBackup: 'true',
      tableBackupRetentionDays: '60',
      tableBackupVaultLock: 'compliance',
    },
  );
});

afterAll(() => stubs?.remove());

/** Resources of the root template of a type. */
function ofType(type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** Resources of a type in every template (root and nested) of a synthesized app. */
function everywhere(s: Synthesized, type: string): CfnResource[] {
  return everyTemplate(s.app).flatMap(({ template }) => Object.values(template.findResources(type)) as CfnResource[]);
}

function routeFunction(spec: RouteSpec) {
  const route = synth.stack.api.routes.find((candidate) => candidate.spec.id === spec.id);
  if (!route) throw new Error(`no function for route ${spec.id}`);
  return route.function;
}

describe('functions', () => {
  it('has one function per route, per worker, and the not-found function, nothing else, all on Node 22/arm64', () => {
    // Besides aws-cdk-lib's BucketDeployment function, which copies the console's files at deploy time (lib/console.ts).
    const functions = everyTemplate(synth.app).flatMap(({ template }) =>
      Object.entries(template.findResources('AWS::Lambda::Function'))
        .filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'))
        .map(([, resource]) => resource as CfnResource),
    );
    expect(functions).toHaveLength(deployedRoutes.length + workerList.length + 1);
    expect(synth.stack.functions).toHaveLength(deployedRoutes.length + workerList.length + 1);
    for (const fn of functions) expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler' });
  });

  it('never deploys a local-only route: the development sign-in (DevOAuthContinue, DevOAuthAuthorize) is not in AWS', () => {
    const localOnly = routeList.filter((spec) => spec.localOnly === true);
    expect(localOnly.map((spec) => spec.id).sort()).toEqual(['DevOAuthAuthorize', 'DevOAuthContinue']);
    const templates = everyTemplate(synth.app).map(({ template }) => JSON.stringify(template.toJSON()));
    for (const spec of localOnly) {
      expect(synth.stack.api.routes.some((route) => route.spec.id === spec.id), spec.id).toBe(false);
      for (const template of templates) {
        expect(template, spec.id).not.toContain(spec.id);
        expect(template, spec.id).not.toContain(spec.path);
      }
    }
  });

  it('gives every function exactly the environment config.ts reads, pointing at this stack', () => {
    const { data, keys, queues } = synth.stack;
    const apiFunctions = new Set(synth.stack.api.functions.map(({ function: fn }) => fn));
    for (const { function: fn, uses } of synth.stack.functions) {
      const id = fn.node.path;
      const variables = inRootTerms(fn.function, resourceOf(fn.function).Properties.Environment.Variables as Record<string, unknown>);
      const expected = [
        ...FUNCTION_ENVIRONMENT,
        ...(uses.includes('identity') ? IDENTITY_ENVIRONMENT : []),
        ...(apiFunctions.has(fn) ? ['LEDGER_PUBLIC_URL'] : []),
      ].sort();
      expect(Object.keys(variables).sort(), id).toEqual(expected);
      expect(variables, id).toMatchObject({
        LEDGER_TABLE: refOf(data.table),
        LEDGER_DATA_BUCKET: refOf(data.dataBucket),
        LEDGER_ANCHORS_BUCKET: refOf(data.anchorsBucket),
        LEDGER_SIGNER_KEY_ID: arnOf(keys.signer),
        LEDGER_SECRETS_KEY_ID: arnOf(keys.secrets),
        LEDGER_EVENTS_QUEUE_URL: refOf(queues.queues.events),
        LEDGER_EXPORTS_QUEUE_URL: refOf(queues.queues.exports),
        LEDGER_DELIVERIES_QUEUE_URL: refOf(queues.queues.deliveries),
        LEDGER_DELIVERIES_DEAD_LETTER_QUEUE_URL: refOf(queues.deadLetterQueues.deliveries),
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
    const variables = (stack: Synthesized) => {
      const fn = stack.stack.api.routes.find((candidate) => candidate.spec.id === routes.signUp.id)!.function.function;
      return inRootTerms(fn, resourceOf(fn).Properties.Environment.Variables as Record<string, unknown>);
    };
    // The console's CloudFront origin also carries the API (lib/console.ts), so mailed links open the console.
    const publicUrl = JSON.stringify(variables(synth).LEDGER_PUBLIC_URL);
    expect(publicUrl).toMatch(/Distribution[^"]*DomainName/);
    expect(publicUrl).not.toContain('execute-api');
    const custom = synthesize({ lambdasDir: stubs.dir, routes: [routes.signUp], workers: [] }, { publicUrl: 'https://ledger.example.com/' });
    expect(variables(custom).LEDGER_PUBLIC_URL).toBe('https://ledger.example.com');
  });

  it('sizes each route function from its route: memory, timeout, tracing, own log group', () => {
    for (const spec of deployedRoutes) {
      const fn = routeFunction(spec);
      const memory = spec.method === 'POST' && spec.path === '/v1/operations' ? 1024 : 512;
      expect(resourceOf(fn.function).Properties, spec.id).toMatchObject({
        MemorySize: memory,
        Timeout: spec.timeoutSeconds ?? 10,
        TracingConfig: { Mode: 'Active' },
      });
      expect(resourceOf(fn.function).Properties.LoggingConfig.LogGroup, spec.id).toEqual(refOf(fn.logGroup));
      expect(resourceOf(fn.logGroup).Properties.RetentionInDays, spec.id).toBe(365);
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
    const keys = everywhere(synth, 'AWS::ApiGatewayV2::Route').map((route) => route.Properties.RouteKey as string).sort();
    expect(keys).toEqual([...deployedRoutes.map((spec) => `${spec.method} ${spec.path}`), '$default'].sort());

    const targetFunction = (route: (typeof synth.stack.api.routes)[number]['route']): string => {
      const resources = templateOf(route).toJSON().Resources as Record<string, CfnResource>;
      const integrationId = resourceOf(route).Properties.Target['Fn::Join'][1][1].Ref as string;
      return resources[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
    };
    for (const { spec, route, function: fn } of synth.stack.api.routes) {
      expect(Stack.of(route), spec.id).toBe(Stack.of(fn.function));
      expect(targetFunction(route), spec.id).toBe(logicalId(fn.function));
    }
    expect(targetFunction(synth.stack.api.notFoundRoute)).toBe(logicalId(synth.stack.api.notFoundFunction.function));
  });

  it('logs access on the $default stage and throttles it', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] }, Format: Match.anyValue() },
      DefaultRouteSettings: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 },
    });
  });

  it('throttles POST /v1/operations below the KMS Sign quota (submitRateLimit, submitBurstLimit), once its nested route stack exists', () => {
    const submitArea = Stack.of(routeFunction(routes.submitOperation).function) as NestedStack;
    const stage = resourceOf(synth.stack.api.stage) as CfnResource & { DependsOn?: string[] };
    expect(stage.Properties.RouteSettings).toEqual({ 'POST /v1/operations': { ThrottlingRateLimit: 250, ThrottlingBurstLimit: 250 } });
    // API Gateway refuses route settings for a route key that does not exist yet.
    expect(stage.DependsOn).toContain(logicalId(submitArea.nestedStackResource!));

    const raised = synthesize({ lambdasDir: stubs.dir, routes: [routes.submitOperation], workers: [] }, { submitRateLimit: '900', submitBurstLimit: '1200' });
    expect(resourceOf(raised.stack.api.stage).Properties.RouteSettings).toEqual({
      'POST /v1/operations': { ThrottlingRateLimit: 900, ThrottlingBurstLimit: 1200 },
    });
    // Without the route there is nothing to throttle.
    expect(resourceOf(variant.stack.api.stage).Properties.RouteSettings).toBeUndefined();
  });

  it('outputs the console URL, the API URL, the table and bucket names, the alarm topic and the dashboard', () => {
    expect(Object.keys(synth.template.toJSON().Outputs).sort()).toEqual(
      ['AlarmTopicArn', 'AnchorsBucketName', 'ApiUrl', 'ConsoleUrl', 'DashboardName', 'DataBucketName', 'TableName'].sort(),
    );
  });
});

describe('data', () => {
  it('builds the table of TABLE_DESIGN: on demand, PITR, deletion protection, encrypted, TTL, retained, its stream of new images (the outbox)', () => {
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
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: TABLE_DESIGN.stream });
    const indexes = table.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown }[];
    expect(indexes).toHaveLength(TABLE_DESIGN.globalIndexes.length);
    const projections = (table.Properties.GlobalSecondaryIndexes as { Projection: unknown }[]).map((index) => index.Projection);
    expect(projections).toEqual(
      TABLE_DESIGN.globalIndexes.map(({ projection }) =>
        'attributes' in projection
          ? { ProjectionType: projection.type, NonKeyAttributes: [...projection.attributes] }
          : { ProjectionType: projection.type },
      ),
    );
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
        LoggingConfiguration: { DestinationBucketName: refOf(logsBucket) },
      });
    }
  });

  it('expires replaced versions of data objects after dataNoncurrentVersionDays (default 90), never current ones', () => {
    const rules = (s: Synthesized) => resourceOf(s.stack.data.dataBucket).Properties.LifecycleConfiguration.Rules as Record<string, unknown>[];
    expect(rules(synth)).toContainEqual(expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 90 }, Status: 'Enabled' }));
    expect(rules(variant)).toContainEqual(expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 30 } }));
    expect(rules(synth).filter((rule) => 'ExpirationInDays' in rule)).toEqual([]);
  });

  it('backs the table up daily into a retained vault when context tableBackup asks, with the Vault Lock asked for', () => {
    expect(synth.stack.backup).toBeUndefined();
    synth.template.resourceCountIs('AWS::Backup::BackupPlan', 0);
    const { backup, data } = variant.stack;
    expect(resourceOf(backup!.vault)).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: { LockConfiguration: { MinRetentionDays: 60, ChangeableForDays: 3 } },
    });
    variant.template.hasResourceProperties('AWS::Backup::BackupPlan', {
      BackupPlan: {
        BackupPlanRule: [Match.objectLike({ ScheduleExpression: 'cron(0 3 * * ? *)', Lifecycle: { DeleteAfterDays: 60 } })],
      },
    });
    variant.template.hasResourceProperties('AWS::Backup::BackupSelection', {
      BackupSelection: Match.objectLike({ Resources: [{ 'Fn::GetAtt': [logicalId(data.table), 'Arn'] }] }),
    });
    const governance = synthesize({ lambdasDir: stubs.dir, routes: [], workers: [] }, { tableBackup: 'true', tableBackupVaultLock: 'governance' });
    expect(resourceOf(governance.stack.backup!.vault).Properties.LockConfiguration).toEqual({ MinRetentionDays: 35 });
    const unlocked = synthesize({ lambdasDir: stubs.dir, routes: [], workers: [] }, { tableBackup: 'true' });
    expect(resourceOf(unlocked.stack.backup!.vault).Properties.LockConfiguration).toBeUndefined();
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
  it('signs receipts with an Ed25519 KMS key and encrypts secrets with a rotated symmetric key, both with aliases', () => {
    const { signer, secrets } = synth.stack.keys;
    expect(resources[logicalId(signer)]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: { KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY' },
    });
    expect(resources[logicalId(secrets)]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: { EnableKeyRotation: true },
    });
    const aliases = ofType('AWS::KMS::Alias').map(([, alias]) => [alias.Properties.AliasName, alias.Properties.TargetKeyId]);
    expect(aliases).toEqual(
      expect.arrayContaining([
        ['alias/AgentLedger/receipt-signer', arnOf(signer)],
        ['alias/AgentLedger/webhook-secrets', arnOf(secrets)],
      ]),
    );
  });

  it('denies disabling the receipt key or scheduling its deletion to all but the break-glass role from context', () => {
    const denial = (s: Synthesized) =>
      (resourceOf(s.stack.keys.signer).Properties.KeyPolicy.Statement as Record<string, unknown>[]).filter((statement) => statement.Effect === 'Deny');
    expect(denial(synth)).toEqual([
      { Sid: 'OnlyBreakGlassMayDisableOrDelete', Effect: 'Deny', Principal: { AWS: '*' }, Action: ['kms:DisableKey', 'kms:ScheduleKeyDeletion'], Resource: '*' },
    ]);
    expect(denial(variant)).toEqual([
      expect.objectContaining({
        Action: ['kms:DisableKey', 'kms:ScheduleKeyDeletion'],
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': BREAK_GLASS } },
      }),
    ]);
    // The account keeps administering the key otherwise (CloudFormation updates its policy through it).
    expect(resourceOf(synth.stack.keys.signer).Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Allow', Action: 'kms:*' }),
    );
  });

  it('rejects a break-glass role that is not an IAM role ARN', () => {
    const app = new App({ context: cdkContext({ breakGlassRoleArn: 'arn:aws:iam::123456789012:user/alice' }), outdir: join(stubs.dir, 'cdk.out-glass') });
    expect(() => new LedgerStack(app, 'BadGlass', { lambdasDir: stubs.dir, routes: [], workers: [] })).toThrow(/breakGlassRoleArn/);
  });

  it('gives the events, deliveries and exports queues encrypted, TLS-only dead-letter queues after 5 receives', () => {
    const { queues, deadLetterQueues } = synth.stack.queues;
    // Three queues with their dead-letter queues; the workers' own dead-letter queues are in their nested stack (lib/workers.ts).
    expect(ofType('AWS::SQS::Queue')).toHaveLength(6);
    for (const name of ['events', 'deliveries', 'exports'] as const) {
      expect(resources[logicalId(queues[name])]!.Properties).toMatchObject({
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: arnOf(deadLetterQueues[name]), maxReceiveCount: 5 },
      });
      expect(resources[logicalId(deadLetterQueues[name])]!.Properties.SqsManagedSseEnabled).toBe(true);
    }
    const queuePolicies = ofType('AWS::SQS::QueuePolicy');
    for (const queue of [...Object.values(queues), ...Object.values(deadLetterQueues)]) {
      const policy = queuePolicies.find(([, candidate]) =>
        (candidate.Properties.Queues as unknown[]).some((queueRef) => JSON.stringify(queueRef) === JSON.stringify(refOf(queue))),
      );
      expect(policy?.[1].Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('runs the epoch schedule every 5 minutes', () => {
    const workers = templateOf(synth.stack.workers);
    workers.resourceCountIs('AWS::Events::Rule', 1);
    workers.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
  });
});

describe('settings', () => {
  it('takes the anchors retention, the TSA and retired receipt keys from context', () => {
    variant.template.hasResourceProperties('AWS::S3::Bucket', {
      ObjectLockConfiguration: { Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 30 } } },
    });
    for (const { function: fn } of variant.stack.functions) {
      expect(resourceOf(fn.function).Properties.Environment.Variables, fn.node.path).toMatchObject({
        LEDGER_TSA_URL: TSA_URL,
        LEDGER_RETIRED_SERVICE_KEYS: RETIRED_KEYS.join(','),
      });
    }
  });

  it('rejects a retired receipt key that is not a base64url Ed25519 public key', () => {
    const app = new App({ context: cdkContext({ retiredServiceKeys: 'not-a-key' }), outdir: join(stubs.dir, 'cdk.out-badkey') });
    expect(() => new LedgerStack(app, 'BadKey', { lambdasDir: stubs.dir })).toThrow(/retiredServiceKeys/);
  });

  it('rejects a malformed knob when the stack is built', () => {
    for (const [key, value] of [
      ['epochRetentionDays', 'a year'],
      ['dataNoncurrentVersionDays', '0'],
      ['alarmEmail', 'not an address'],
      ['tableBackup', 'yes'],
      ['tableBackupVaultLock', 'forever'],
    ]) {
      const app = new App({ context: cdkContext({ [key!]: value }), outdir: join(stubs.dir, `cdk.out-bad-${key}`) });
      expect(() => new LedgerStack(app, 'Bad', { lambdasDir: stubs.dir, routes: [], workers: [] }), key).toThrow(new RegExp(key!));
    }
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  it('reports no unacknowledged finding for the stack', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('has the findings of every Resource kind and of every worker kind acknowledged, so new entries synthesize', () => {
    const report = new AwsSolutionsChecks().validateScope(variant.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('runs as a Validations plugin (as in bin/ledger.ts) that fails synthesis on an unacknowledged finding', () => {
    const app = new App({ context: cdkContext(), outdir: join(stubs.dir, 'cdk.out') });
    const stack = new LedgerStack(app, 'AgentLedger', { lambdasDir: stubs.dir, routes: [], workers: [] });
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
