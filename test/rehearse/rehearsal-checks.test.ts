// The deploy rehearsal's checks can fail (docs/DEPLOY.md, Rehearsal): a statement removed from a
// function's role in the synthesized template fails it naming function, action and resource;
// a variable removed from a function's environment fails it naming both; and upgrade-check's
// comparison fails on a table the new templates would replace. One synth (with bundles) serves
// every test of this file.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { readAssembly, type CfnTemplate, type Json } from '../../scripts/rehearse/assembly.js';
import { readDeployment, type Deployment, type RehearsalFunction } from '../../scripts/rehearse/deployment.js';
import { IamCheck } from '../../scripts/rehearse/iam-check.js';
import { RECEIPT_KEYS_PARTITION } from '../../lambdas/shared/receipt-keys.js';
import { startRehearsal, type RehearsalReport } from '../../scripts/rehearse/rehearsal.js';
import { synthesize } from '../../scripts/rehearse/synth.js';
import { compareAssemblies } from '../../scripts/rehearse/upgrade-diff.js';
import { resolveRef } from '../../scripts/rehearse/upgrade-check.js';

mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(PROJECT_ROOT, '.tmp', 'rehearsal-checks-'));
const cdkOut = join(scratch, 'cdk.out');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeAll(async () => {
  await synthesize(cdkOut, { bundle: true });
}, 600_000);

/** The unedited templates as the rehearsal deploys them. */
const deploymentOf = (): Deployment =>
  readDeployment(readAssembly(cdkOut), { userPoolId: () => 'pool', userPoolClientId: () => 'client', apiHost: '127.0.0.1:1', sqsEndpoint: 'http://127.0.0.1:2' });

/** The function a route invokes, read from the unedited templates. */
function routeFunction(routeKey: string): RehearsalFunction {
  const deployment = deploymentOf();
  const id = deployment.routes.find((route) => route.routeKey === routeKey)!.functionId;
  return deployment.functions.find((fn) => fn.id === id)!;
}

/** Runs the rehearsal on edited templates, sends one request, and returns the report. */
async function rehearseOnce(edit: (file: string, template: CfnTemplate) => void, preload: string[], path: string): Promise<RehearsalReport> {
  const rehearsal = await startRehearsal({ cdkOut, edit, preload: (id) => preload.includes(id) });
  try {
    await (await fetch(`${rehearsal.url}${path}`)).arrayBuffer();
    return await rehearsal.report();
  } finally {
    await rehearsal.stop();
  }
}

describe('the rehearsal fails', () => {
  it('when a function role lacks a statement its calls need, naming function, action and resource', async () => {
    const jwks = routeFunction('GET /.well-known/service/jwks.json');
    const policy = jwks.policies.find((candidate) => JSON.stringify(candidate.document).includes('kms:GetPublicKey'))!;
    expect(policy, 'the JWKS role grants kms:GetPublicKey').toBeDefined();
    let removed = 0;
    const report = await rehearseOnce(
      (file, template) => {
        if (file !== jwks.stack.file) return;
        const document = template.Resources[policy.name]!.Properties!.PolicyDocument as { Statement: { Action: Json }[] };
        const before = document.Statement.length;
        document.Statement = document.Statement.filter((statement) => !JSON.stringify(statement.Action).includes('kms:GetPublicKey'));
        removed = before - document.Statement.length;
      },
      [jwks.id],
      '/.well-known/service/jwks.json',
    );
    expect(removed).toBe(1);
    const signer = jwks.environment.LEDGER_SIGNER_KEY_ID!;
    const denied = report.problems.filter((problem) => problem.kind === 'denied' && problem.functionId === jwks.id);
    expect(denied).toHaveLength(1);
    expect(denied[0]!.message).toContain(`kms:GetPublicKey on ${signer}`);
    expect(report.functions.find((fn) => fn.id === jwks.id)).toMatchObject({ loaded: true, invocations: 1, denied: 1 });
  }, 300_000);

  it('when the template leaves out a variable the code reads, naming function and variable; the unedited role allows every call', async () => {
    const health = routeFunction('GET /v1/health');
    const jwks = routeFunction('GET /.well-known/service/jwks.json');
    const report = await rehearseOnce(
      (file, template) => {
        if (file !== health.stack.file) return;
        const variables = (template.Resources[health.logicalId]!.Properties!.Environment as { Variables: Record<string, Json> }).Variables;
        delete variables.LEDGER_TABLE;
      },
      [jwks.id],
      '/.well-known/service/jwks.json',
    );
    expect(report.problems.filter((problem) => problem.kind === 'environment')).toEqual([
      { functionId: health.id, kind: 'environment', message: expect.stringContaining('missing required environment variable LEDGER_TABLE') as unknown as string },
    ]);
    // The same request with the role as synthesized: its call allowed.
    expect(report.problems.filter((problem) => problem.kind === 'denied' && problem.functionId === jwks.id)).toEqual([]);
    expect(report.functions.find((fn) => fn.id === jwks.id)).toMatchObject({ invocations: 1, denied: 0 });
    expect(report.functions.find((fn) => fn.id === jwks.id)!.calls).toBeGreaterThanOrEqual(1);
  }, 300_000);
});

describe('the IAM check of the receipt keys\' partition (SECURITY.md, insiders with table write access)', () => {
  it('denies every write to it to every function but the signing functions\' PutItem, while their other writes stay allowed', async () => {
    const deployment = deploymentOf();
    const check = new IamCheck(deployment);
    const table = deployment.tables[0]!.arn;
    const write = (fn: RehearsalFunction, action: string, pk: string) => check.evaluate(fn, { action: `dynamodb:${action}`, resource: table, context: { 'dynamodb:LeadingKeys': [pk] } });
    const signers = ['ExportFiles', 'SealEpochs', 'SubmitOperation'];
    const puttingReceiptKeys: string[] = [];
    let tableWriters = 0;
    for (const fn of deployment.functions) {
      if ((await write(fn, 'PutItem', RECEIPT_KEYS_PARTITION)).allowed) puttingReceiptKeys.push(fn.id);
      for (const action of ['UpdateItem', 'DeleteItem']) expect((await write(fn, action, RECEIPT_KEYS_PARTITION)).allowed, `${fn.id} ${action}`).toBe(false);
      if ((await write(fn, 'PutItem', 'ORG#rehearsal')).allowed) {
        tableWriters++;
        if (!signers.includes(fn.id)) expect((await write(fn, 'PutItem', RECEIPT_KEYS_PARTITION)).result, fn.id).toBe('ExplicitlyDenied');
      }
    }
    expect(puttingReceiptKeys.sort()).toEqual(signers);
    expect(tableWriters).toBeGreaterThan(30);
  });
});

describe('upgrade-check', () => {
  const tableOf = (template: CfnTemplate) => Object.values(template.Resources).find((resource) => resource.Type === 'AWS::DynamoDB::Table');

  it('passes templates deployed over themselves', () => {
    expect(compareAssemblies(readAssembly(cdkOut), readAssembly(cdkOut))).toEqual([]);
  });

  it('fails on a key schema change, which replaces the table', () => {
    const after = readAssembly(cdkOut, (_file, template) => {
      const table = tableOf(template);
      if (table) (table.Properties!.KeySchema as { KeyType: string }[]).reverse().forEach((key, index) => (key.KeyType = index === 0 ? 'HASH' : 'RANGE'));
    });
    const blockers = compareAssemblies(readAssembly(cdkOut), after).filter((finding) => finding.severity === 'blocker');
    expect(blockers).toHaveLength(1);
    expect(blockers[0]!.message).toMatch(/^AWS::DynamoDB::Table \w+: changing KeySchema replaces it/);
  });

  it('fails on two indexes in one deploy and names the one index of a deploy as a migration step', () => {
    const addIndexes = (count: number) =>
      readAssembly(cdkOut, (_file, template) => {
        const table = tableOf(template);
        if (!table) return;
        const indexes = table.Properties!.GlobalSecondaryIndexes as Json[];
        for (let i = 0; i < count; i++) indexes.push({ IndexName: `extra${i}`, KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } });
      });
    const two = compareAssemblies(readAssembly(cdkOut), addIndexes(2));
    expect(two.filter((finding) => finding.severity === 'blocker').map((finding) => finding.message)).toEqual([expect.stringContaining('2 index(es) created (extra0, extra1)')]);
    const one = compareAssemblies(readAssembly(cdkOut), addIndexes(1));
    expect(one.filter((finding) => finding.severity === 'blocker')).toEqual([]);
    expect(one.map((finding) => finding.message)).toEqual([expect.stringContaining('index extra0 is created')]);
  });

  it('fails when a stateful resource is renamed (a new logical id)', () => {
    const after = readAssembly(cdkOut, (_file, template) => {
      for (const [id, resource] of Object.entries(template.Resources)) {
        if (resource.Type !== 'AWS::SQS::Queue' || !id.startsWith('QueuesEvents3')) continue;
        template.Resources[`${id}Renamed`] = resource;
        delete template.Resources[id];
      }
    });
    const blockers = compareAssemblies(readAssembly(cdkOut), after).filter((finding) => finding.severity === 'blocker');
    expect(blockers.map((finding) => finding.message)).toEqual([expect.stringMatching(/^AWS::SQS::Queue QueuesEvents\w+ would be deleted and QueuesEvents\w+Renamed created in its place/)]);
  });

  it('resolves a release through releases.json when the clone has no tag', () => {
    expect(resolveRef('v0.1.0')).toMatch(/^2f936b6[0-9a-f]{33}$/);
    expect(() => resolveRef('v9.9.9-never')).toThrow(/neither a revision of this clone nor a release in releases.json/);
  });
});
