/**
 * Helpers of the infra tests: synthesize the stack the way `cdk synth` does (cdk.json's
 * context) but without bundling, and read IAM statements back per function.
 *
 * Handler modules are replaced by empty stubs in a scratch directory (under the gitignored
 * .tmp/, because NodejsFunction wants entries inside the project root): the infra test checks
 * wiring, not handlers, and must not depend on which handlers exist yet.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { notFoundHandler } from '../../lambdas/routes/routes.js';
import type { RouteSpec } from '../../lambdas/routes/route-spec.js';
import type { WorkerSpec } from '../../lambdas/workers/worker-spec.js';
import { LedgerStack, type LedgerStackProps } from '../../lib/ledger-stack.js';
import { PROJECT_ROOT } from '../../lib/paths.js';

/** The context `cdk synth` uses (cdk.json), plus the key that skips asset bundling. */
export function cdkContext(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...overrides };
}

/** A scratch lambdas/ directory with an empty module for every handler the stack will name. */
export class StubLambdas {
  readonly dir: string;

  constructor(routes: readonly RouteSpec[], workers: readonly WorkerSpec[]) {
    const scratch = join(PROJECT_ROOT, '.tmp');
    mkdirSync(scratch, { recursive: true });
    this.dir = mkdtempSync(join(scratch, 'infra-stubs-'));
    const modules = [
      ...routes.map((route) => join('http', route.handler)),
      join('http', notFoundHandler),
      ...workers.map((worker) => join('workers', worker.handler)),
    ];
    for (const module of modules) {
      const file = join(this.dir, `${module}.ts`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, 'export const handler = async () => undefined;\n');
    }
    // A built console for lib/console.ts to deploy (synthesize passes it as consoleDir).
    mkdirSync(join(this.dir, 'console-dist', 'assets'), { recursive: true });
    writeFileSync(join(this.dir, 'console-dist', 'index.html'), '<!doctype html><title>console</title>\n');
    writeFileSync(join(this.dir, 'console-dist', 'assets', 'index-stub.js'), '\n');
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface Synthesized {
  readonly app: App;
  readonly stack: LedgerStack;
  readonly template: Template;
}

export function synthesize(
  props: LedgerStackProps & { lambdasDir: string },
  context: Record<string, unknown> = {},
): Synthesized {
  // Synthesize into the stub directory (removed after the tests) rather than a fresh temp dir per app.
  const app = new App({ context: cdkContext(context), outdir: mkdtempSync(join(props.lambdasDir, 'cdk.out-')) });
  const stack = new LedgerStack(app, 'AgentLedger', { consoleDir: join(props.lambdasDir, 'console-dist'), ...props });
  return { app, stack, template: Template.fromStack(stack) };
}

export function logicalId(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** Every IAM statement that applies to a function's execution role (inline and attached). */
export function statementsOfFunction(template: Template, functionLogicalId: string): Statement[] {
  const resources = template.toJSON().Resources as Resources;
  const fn = resources[functionLogicalId];
  if (fn?.Type !== 'AWS::Lambda::Function') throw new Error(`${functionLogicalId} is not a function`);
  const roleId = (fn.Properties?.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const role = resources[roleId]?.Properties ?? {};
  if (role.ManagedPolicyArns !== undefined) throw new Error(`${roleId} has managed policies`);
  const inline = (role.Policies as { PolicyDocument: { Statement: Statement[] } }[] | undefined) ?? [];
  const attached = Object.values(resources).filter(
    (resource) =>
      resource.Type === 'AWS::IAM::Policy' &&
      (resource.Properties?.Roles as unknown[]).some((ref) => JSON.stringify(ref) === JSON.stringify({ Ref: roleId })),
  );
  return [
    ...inline.flatMap((policy) => policy.PolicyDocument.Statement),
    ...attached.flatMap(
      (policy) => (policy.Properties?.PolicyDocument as { Statement: Statement[] }).Statement,
    ),
  ];
}

export function actionsOf(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

/** What a deploy-time reference in a function's environment resolves to, in a form config.ts accepts. */
export function resolvedValue(name: string): string {
  return name === 'LEDGER_PUBLIC_URL' ? 'https://abc123.execute-api.eu-west-1.amazonaws.com/' : `resolved-${name}`;
}
