/**
 * Least privilege, function by function: every function's execution role allows exactly the
 * actions its route or worker needs, on exactly the resources they touch, derived from the
 * table below and the entry's `uses`. The table says what the code calls (lambdas/store/,
 * lambdas/adapters/aws/), written down here independently of lib/grants.ts, so routes and
 * workers added to their tables are checked without touching this file, and a grant that
 * widens fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resource, RouteSpec } from '../../lambdas/routes/route-spec.js';
import { routeList, routes } from '../../lambdas/routes/routes.js';
import { CURSOR_PURPOSE } from '../../lambdas/shared/cursor-purpose.js';
import { TABLE_DESIGN } from '../../lambdas/store/table-design.js';
import type { WorkerSpec } from '../../lambdas/workers/worker-spec.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import type { LedgerFunction } from '../../lib/function.js';
import type { LedgerStack } from '../../lib/ledger-stack.js';
import { actionsOf, arnOf, EVERY_KIND_WORKERS, EVERY_USE_ROUTES, inRootTerms, resourceOf, rootStatementsOf, defaultSynth, StubLambdas, synthesize, type Synthesized } from './support.js';

/** One permission: actions on one resource, under a condition or none, in the terms of the root template. */
type Allowed = readonly [resource: unknown, actions: readonly string[], condition?: unknown];

const join = (arn: unknown, suffix: string) => ({ 'Fn::Join': ['', [arn, suffix]] });

/** What each `uses` entry lets a function do, resource by resource. */
function expectedFor(stack: LedgerStack, use: Resource): Allowed[] {
  const { table, dataBucket, anchorsBucket } = stack.data;
  const tableRead: Allowed[] = [
    [arnOf(table), ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']],
    ...TABLE_DESIGN.globalIndexes.map((index): Allowed => [join(arnOf(table), `/index/${index.name}`), ['dynamodb:Query']]),
  ];
  const bucket = (construct: typeof dataBucket, writes: readonly string[]): Allowed[] => [
    [arnOf(construct), ['s3:ListBucket']],
    [join(arnOf(construct), '/*'), ['s3:GetObject', ...writes]],
  ];
  const send = ['sqs:SendMessage', 'sqs:GetQueueAttributes'];
  const EXPECTED: Record<Resource, Allowed[]> = {
    'table:read': tableRead,
    'table:write': [...tableRead, [arnOf(table), ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem']]],
    'data:read': bucket(dataBucket, []),
    // Multipart uploads are PutObject to IAM; the exports worker aborts a failed export's upload.
    'data:write': bucket(dataBucket, ['s3:PutObject', 's3:AbortMultipartUpload']),
    // Erasing a payload destroys every version of its object and of the export files that held it
    // (POST /v1/operations/:id/erase-payload); the exports worker, of an export it restarts.
    'data:erase': [
      [arnOf(dataBucket), ['s3:ListBucketVersions']],
      [join(arnOf(dataBucket), '/payloads/*'), ['s3:DeleteObjectVersion']],
      [join(arnOf(dataBucket), '/exports/*'), ['s3:DeleteObjectVersion']],
    ],
    'data:erase-exports': [
      [arnOf(dataBucket), ['s3:ListBucketVersions']],
      [join(arnOf(dataBucket), '/exports/*'), ['s3:DeleteObjectVersion']],
    ],
    'anchors:read': bucket(anchorsBucket, []),
    'anchors:write': bucket(anchorsBucket, ['s3:PutObject']),
    ...receiptSigning(stack),
    'secrets:encrypt': [[arnOf(stack.keys.secrets), ['kms:Encrypt']]],
    'secrets:decrypt': [[arnOf(stack.keys.secrets), ['kms:Decrypt']]],
    // The audit cursors (domain/audit/cursor.ts): only under their own encryption context.
    cursors: [[arnOf(stack.keys.secrets), ['kms:Encrypt', 'kms:Decrypt'], { StringEquals: { 'kms:EncryptionContext:purpose': 'audit-query-cursor' } }]],
    'queue:events': [[arnOf(stack.queues.queues.events), send]],
    'queue:exports': [[arnOf(stack.queues.queues.exports), send]],
    // Retries, and after the last attempt the delivery's message moved to the dead-letter queue.
    'queue:deliveries': [
      [arnOf(stack.queues.queues.deliveries), send],
      [arnOf(stack.queues.deadLetterQueues.deliveries), ['sqs:SendMessage']],
    ],
    identity: [[arnOf(stack.identity.userPool), ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminSetUserPassword', 'cognito-idp:AdminDeleteUser']]],
    // The organization's request counter only (lambdas/store/rate-counters.ts: pk `<bucket>#RATE`).
    'table:rate-counter': [[arnOf(table), ['dynamodb:UpdateItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['*#RATE'] } }]],
    'table:token-use': [[arnOf(table), ['dynamodb:UpdateItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TOKENUSE#*'] } }]],
  };
  return EXPECTED[use];
}

/**
 * Receipt signing by mode: kms:Sign on the signing key; or with receiptSigner=envelope the
 * wrapping key under the receipt-key purpose, the attestation key, and the receipt keys'
 * partition (store/receipt-keys.ts); publishing reads the partition and the attestation key's public half.
 */
function receiptSigning(stack: LedgerStack): Pick<Record<Resource, Allowed[]>, 'signer' | 'signer:public-key'> {
  const wrap = stack.keys.receiptKeyWrap;
  if (!wrap) {
    return { signer: [[arnOf(stack.keys.signer), ['kms:Sign', 'kms:GetPublicKey']]], 'signer:public-key': [[arnOf(stack.keys.signer), ['kms:GetPublicKey']]] };
  }
  const receiptKeys = { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['SERVICE#RECEIPT_KEYS'] } };
  return {
    signer: [
      [arnOf(wrap), ['kms:Decrypt', 'kms:GenerateDataKey'], { StringEquals: { 'kms:EncryptionContext:purpose': 'receipt-key' } }],
      [arnOf(stack.keys.receiptKeyAttestor!), ['kms:Sign', 'kms:GetPublicKey']],
      [arnOf(stack.data.table), ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'], receiptKeys],
    ],
    'signer:public-key': [
      [arnOf(stack.data.table), ['dynamodb:GetItem', 'dynamodb:Query'], receiptKeys],
      [arnOf(stack.keys.receiptKeyAttestor!), ['kms:GetPublicKey']],
    ],
  };
}

/** What every function may do: write its own log group, and send X-Ray traces (which take no resource). */
function baseline(fn: LedgerFunction): Allowed[] {
  return [
    [arnOf(fn.logGroup), ['logs:CreateLogStream', 'logs:PutLogEvents']],
    ['*', ['xray:PutTraceSegments', 'xray:PutTelemetryRecords']],
  ];
}

/** What a worker's trigger adds: receiving from its queue, sending to its own dead-letter queue, reading the table's stream. */
function triggerGrants(stack: LedgerStack, worker: WorkerSpec): Allowed[] {
  const deadLetters = stack.workers.deadLetterQueues[worker.id];
  switch (worker.trigger.kind) {
    case 'queue':
      return [[arnOf(stack.queues.queues[worker.trigger.queue]), ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']]];
    case 'schedule':
      return [[arnOf(deadLetters!), ['sqs:SendMessage']]];
    case 'stream':
      return [
        [arnOf(deadLetters!), ['sqs:SendMessage']],
        [
          join(arnOf(stack.data.table), '/stream/*'),
          ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        ],
        // ListStreams names no stream: IAM evaluates it only against "*".
        ['*', ['dynamodb:ListStreams']],
      ];
  }
}

/** Allowed pairs as sorted `action on resource` lines, so merged or split statements compare equal. */
function lines(allowed: readonly Allowed[]): string[] {
  return [
    ...new Set(
      allowed.flatMap(([resource, actions, condition]) =>
        actions.map((action) => `${action} on ${JSON.stringify(resource)}${condition === undefined ? '' : ` if ${JSON.stringify(condition)}`}`),
      ),
    ),
  ].sort();
}

function actualLines(fn: LedgerFunction): string[] {
  return lines(
    rootStatementsOf(fn).flatMap((statement) => {
      expect(['Allow', 'Deny']).toContain(statement.Effect);
      const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
      const actions = actionsOf(statement).map((action) => (statement.Effect === 'Deny' ? `DENY ${action}` : action));
      return resources.map((resource): Allowed => [resource, actions, statement.Condition]);
    }),
  );
}

/**
 * The explicit deny every function with 'table:write' gets on the receipt keys' partition
 * (lib/grants.ts): every write for most, all but their conditional PutItem for the signing functions.
 */
function receiptKeyDeny(stack: LedgerStack, uses: readonly Resource[]): Allowed[] {
  if (!uses.includes('table:write')) return [];
  const denied = uses.includes('signer') ? ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'] : ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
  return [[arnOf(stack.data.table), denied.map((action) => `DENY ${action}`), { 'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': ['SERVICE#RECEIPT_KEYS'] } }]];
}

function checkEveryFunction(synth: Synthesized, workers: readonly WorkerSpec[]): void {
  const { stack } = synth;
  for (const { spec, function: fn } of stack.api.routes) {
    // Every authenticated route counts its request against the organization's rate limit and
    // records its API token's use (lambdas/http/authenticate.ts, lambdas/domain/auth/caller-lookup.ts).
    const uses: Resource[] = spec.auth === 'public' ? [...spec.uses] : [...spec.uses, 'table:rate-counter', 'table:token-use'];
    const expected = [...baseline(fn), ...uses.flatMap((use) => expectedFor(stack, use)), ...receiptKeyDeny(stack, uses)];
    expect(actualLines(fn), spec.id).toEqual(lines(expected));
  }
  expect(actualLines(stack.api.notFoundFunction), 'NotFound').toEqual(lines(baseline(stack.api.notFoundFunction)));
  for (const worker of workers) {
    const fn = stack.workers.functions.find(({ function: candidate }) => candidate.node.id === worker.id)!.function;
    const expected = [...baseline(fn), ...worker.uses.flatMap((use) => expectedFor(stack, use)), ...receiptKeyDeny(stack, worker.uses), ...triggerGrants(stack, worker)];
    expect(actualLines(fn), worker.id).toEqual(lines(expected));
  }
}

let stubs: StubLambdas;
let synth: Synthesized;
let variant: Synthesized;
let envelope: Synthesized;

beforeAll(() => {
  stubs = new StubLambdas([...routeList, ...EVERY_USE_ROUTES], [...workerList, ...EVERY_KIND_WORKERS]);
  synth = defaultSynth();
  variant = synthesize({ lambdasDir: stubs.dir, routes: EVERY_USE_ROUTES, workers: EVERY_KIND_WORKERS });
  envelope = synthesize({ lambdasDir: stubs.dir }, { receiptSigner: 'envelope' });
});
afterAll(() => stubs?.remove());

describe('each function is allowed exactly what its uses need', () => {
  it('for every route and worker of the real tables (the $default route: its logs and traces only)', () => {
    checkEveryFunction(synth, workerList);
  });

  it('for every Resource kind and every trigger kind', () => {
    checkEveryFunction(variant, EVERY_KIND_WORKERS);
  });

  it('with receiptSigner=envelope, for every route and worker of the real tables', () => {
    checkEveryFunction(envelope, workerList);
  });
});

/** DynamoDB actions that change items. */
const DYNAMODB_WRITE = /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/;

describe('what the split grants mean for real routes', () => {
  const actionsOfRoute = (spec: RouteSpec) =>
    rootStatementsOf(synth.stack.api.routes.find((route) => route.spec.id === spec.id)!.function).flatMap(actionsOf);
  const actionsOfFunction = (id: string) => rootStatementsOf(synth.stack.functions.find(({ function: fn }) => fn.node.id === id)!.function).flatMap(actionsOf);

  it('the JWKS and the deep health probe read the public key and cannot sign', () => {
    for (const spec of [routes.jwks, routes.deepHealth]) {
      expect(actionsOfRoute(spec), spec.id).toContain('kms:GetPublicKey');
      expect(actionsOfRoute(spec), spec.id).not.toContain('kms:Sign');
    }
    expect(actionsOfRoute(routes.submitOperation)).toContain('kms:Sign');
  });

  it('the receipt check (verify) reads the public key only: it signs nothing', () => {
    expect(actionsOfRoute(routes.verifyOperation)).toContain('kms:GetPublicKey');
    expect(actionsOfRoute(routes.verifyOperation)).not.toContain('kms:Sign');
  });

  it('with receiptSigner=envelope: only the signing functions may kms:Sign, and with the attestation key only; only they may decrypt the receipt key, and only their roles carry the tag the key policy asks for', () => {
    const { stack } = envelope;
    const wrap = stack.keys.receiptKeyWrap!;
    const attestor = stack.keys.receiptKeyAttestor!;
    for (const { function: fn, uses } of stack.functions) {
      const statements = rootStatementsOf(fn);
      const signing = statements.filter((statement) => actionsOf(statement).includes('kms:Sign'));
      expect(signing.map((statement) => statement.Resource), fn.node.id).toEqual(uses.includes('signer') ? [arnOf(attestor)] : []);
      const publicKeys = statements.filter((statement) => actionsOf(statement).includes('kms:GetPublicKey'));
      expect(publicKeys.every((statement) => JSON.stringify(statement.Resource) === JSON.stringify(arnOf(attestor))), fn.node.id).toBe(true);
      const decrypting = statements.filter((statement) => actionsOf(statement).includes('kms:Decrypt') && JSON.stringify(statement.Resource) === JSON.stringify(arnOf(wrap)));
      expect(decrypting.length, fn.node.id).toBe(uses.includes('signer') ? 1 : 0);
      const tags = (resourceOf(fn.role).Properties.Tags ?? []) as { Key: string; Value: string }[];
      expect(tags.some((tag) => tag.Key === 'agent-ledger:receipt-signer' && tag.Value === 'true'), fn.node.id).toBe(uses.includes('signer'));
    }
    const signing = stack.functions.filter(({ uses }) => uses.includes('signer')).map(({ function: fn }) => fn.node.id).sort();
    expect(signing).toEqual(['ExportFiles', 'SealEpochs', 'SubmitOperation'].sort());
    // Every function learns the wrapping key and the generation (lambdas/config.ts), none the signing key.
    for (const { function: fn } of stack.functions) {
      const variables = inRootTerms(fn.function, resourceOf(fn.function).Properties.Environment.Variables as Record<string, unknown>);
      expect(variables, fn.node.id).toMatchObject({ LEDGER_RECEIPT_KEY_WRAP_KEY_ID: arnOf(wrap), LEDGER_RECEIPT_KEY_ATTEST_KEY_ID: arnOf(attestor), LEDGER_RECEIPT_KEY_GENERATION: '1' });
      expect(variables, fn.node.id).not.toHaveProperty('LEDGER_SIGNER_KEY_ID');
    }
    expect(resourceOf(wrap).DeletionPolicy).toBe('Retain');
    expect(resourceOf(attestor).DeletionPolicy).toBe('Retain');
    expect(resourceOf(attestor).Properties).toMatchObject({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY' });
    // The key policy: Decrypt and ReEncryptFrom denied to every principal without the signing functions' tag.
    const policy = resourceOf(wrap).Properties.KeyPolicy as { Statement: { Sid?: string; Effect: string; Action: string[]; Condition?: unknown }[] };
    expect(policy.Statement.find((statement) => statement.Sid === 'OnlySigningFunctionsMayDecrypt')).toMatchObject({
      Effect: 'Deny',
      Action: ['kms:Decrypt', 'kms:ReEncryptFrom'],
      Condition: { StringNotEquals: { 'aws:PrincipalTag/agent-ledger:receipt-signer': 'true' } },
    });
  });

  it('receiptSigner and receiptKeyGeneration take only their values', () => {
    expect(() => synthesize({ lambdasDir: stubs.dir }, { receiptSigner: 'file' })).toThrow(/receiptSigner must be one of kms, envelope/);
    expect(() => synthesize({ lambdasDir: stubs.dir }, { receiptSigner: 'envelope', receiptKeyGeneration: 0 })).toThrow(/receiptKeyGeneration must be an integer >= 1/);
  });

  it('with receiptSigner=kms (the default) there is no wrapping key and no tagged role', () => {
    expect(synth.stack.keys.receiptKeyWrap).toBeUndefined();
    for (const { function: fn } of synth.stack.functions) expect(resourceOf(fn.role).Properties.Tags, fn.node.id).toBeUndefined();
  });

  it('the audit query may Query each index of its filters, and use the secrets key only for its own cursors', () => {
    const statements = rootStatementsOf(synth.stack.api.routes.find((route) => route.spec.id === routes.auditQuery.id)!.function);
    const queried = statements.filter((statement) => actionsOf(statement).includes('dynamodb:Query')).flatMap((statement) => JSON.stringify(statement.Resource));
    for (const index of ['ops_by_agent', 'ops_by_type', 'ops_by_agent_type']) expect(queried.join(), index).toContain(`/index/${index}`);
    const kms = statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith('kms:')));
    expect(kms).toHaveLength(1);
    expect(kms[0]!.Condition).toEqual({ StringEquals: { 'kms:EncryptionContext:purpose': CURSOR_PURPOSE } });
  });

  it('webhook secrets: registration may only encrypt, delivery and test only decrypt', () => {
    const kmsActions = (id: string) => actionsOfFunction(id).filter((action) => action.startsWith('kms:'));
    expect(kmsActions(routes.registerWebhook.id)).toEqual(['kms:Encrypt']);
    for (const id of [routes.testWebhook.id, routes.redeliver.id, 'WebhookDeliveries']) expect(kmsActions(id), id).toEqual(['kms:Decrypt']);
  });

  it('the outbox forwarder (ForwardEvents) reads only the table\'s stream and sends only to the events queue', () => {
    const fn = synth.stack.workers.functions.find(({ function: candidate }) => candidate.node.id === 'ForwardEvents')!.function;
    const { stack } = synth;
    expect(actualLines(fn)).toEqual(
      lines([
        ...baseline(fn),
        [join(arnOf(stack.data.table), '/stream/*'), ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']],
        ['*', ['dynamodb:ListStreams']],
        [arnOf(stack.queues.queues.events), ['sqs:SendMessage', 'sqs:GetQueueAttributes']],
        [arnOf(stack.workers.deadLetterQueues.ForwardEvents!), ['sqs:SendMessage']],
      ]),
    );
  });

  it('events leave only through the outbox: the sealer and the exports worker cannot send them, the webhook fan-out cannot sign or write', () => {
    const sqsActionsOn = (id: string, queue: unknown) =>
      rootStatementsOf(synth.stack.functions.find(({ function: fn }) => fn.node.id === id)!.function)
        .filter((statement) => JSON.stringify(statement.Resource).includes(JSON.stringify(queue)))
        .flatMap(actionsOf);
    const events = arnOf(synth.stack.queues.queues.events);
    for (const id of ['SealEpochs', 'ExportFiles']) expect(sqsActionsOn(id, events), id).toEqual([]);
    const fanout = actionsOfFunction('WebhookFanout');
    expect(fanout.filter((action) => action.startsWith('kms:') || action.startsWith('s3:') || DYNAMODB_WRITE.test(action))).toEqual([]);
  });

  it('no function may Scan, BatchWriteItem, delete objects (but erase-payload and the exports worker destroy versions), use a data key or any action wildcard', () => {
    const eraser = synth.stack.api.routes.find((route) => route.spec.id === routes.erasePayload.id)!.function;
    const exporter = synth.stack.functions.find(({ function: fn }) => fn.node.id === 'ExportFiles')!.function;
    for (const { function: fn } of synth.stack.functions) {
      const actions = rootStatementsOf(fn).flatMap(actionsOf);
      // A plain DeleteObject would leave the bytes as a noncurrent version (lib/grants.ts DESTROY_ACTIONS).
      const allowed = fn === eraser || fn === exporter ? ['s3:DeleteObjectVersion'] : [];
      expect(actions.filter((action) => /Scan|BatchWriteItem|^s3:Delete|GenerateDataKey|ReEncrypt|\*/.test(action)), fn.node.path).toEqual(allowed);
    }
  });

  it('grants "*" resources only for X-Ray and the stream trigger\'s ListStreams, which have no resource-level permissions', () => {
    for (const { function: fn } of synth.stack.functions) {
      for (const statement of rootStatementsOf(fn)) {
        if (statement.Resource === '*') expect(actionsOf(statement).every((action) => action.startsWith('xray:') || action === 'dynamodb:ListStreams'), fn.node.path).toBe(true);
      }
    }
  });
});
