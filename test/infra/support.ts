/**
 * Helpers of the infra tests: synthesize the stack the way `cdk synth` does (cdk.json's
 * context) but without bundling, find the template (root or nested) that holds a construct,
 * and read IAM statements back per function.
 *
 * Handler modules are replaced by empty stubs in a scratch directory (under the gitignored
 * .tmp/, inside the project root like the real handlers): the infra test checks wiring, not
 * handlers, and must not depend on which handlers exist yet.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Annotations, App, NestedStack, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import type { LedgerFunction } from '../../lib/function.js';
import { DEFAULT_SENDER_WARNING_ID } from '../../lib/identity.js';
import { notFoundHandler, routeList } from '../../lambdas/routes/routes.js';
import type { Resource, RouteSpec } from '../../lambdas/routes/route-spec.js';
import type { WorkerSpec } from '../../lambdas/workers/worker-spec.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { LedgerStack, type LedgerStackProps } from '../../lib/ledger-stack.js';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { removeWhenGone } from '../../local/watchdog.js';

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

/**
 * Builds and synthesizes the stack. The warning `cdk synth` prints about Cognito's default
 * sender (lib/identity.ts) is acknowledged unless `keepWarnings`, so that the test output is
 * not the same warning once per stack; identity.test.ts checks it is there.
 */
export function synthesize(
  props: LedgerStackProps & { lambdasDir: string },
  context: Record<string, unknown> = {},
  options: { keepWarnings?: boolean } = {},
): Synthesized {
  // Synthesize into the stub directory (removed after the tests) rather than a fresh temp dir per app.
  const app = new App({ context: cdkContext(context), outdir: mkdtempSync(join(props.lambdasDir, 'cdk.out-')) });
  const stack = new LedgerStack(app, 'AgentLedger', { consoleDir: join(props.lambdasDir, 'console-dist'), ...props });
  if (!options.keepWarnings) Annotations.of(stack.identity.userPool).acknowledgeWarning(DEFAULT_SENDER_WARNING_ID);
  return { app, stack, template: templateOf(stack) };
}

let shared: Synthesized | undefined;

/**
 * The stack `cdk synth` builds by default (every route and worker, cdk.json's context, the
 * sender warning acknowledged), synthesized once per process: most infra test files check it,
 * and a synthesis costs seconds of CPU (the first in a process several times more). The infra
 * project runs its files one after the other in one process (vitest.config.ts), so they share
 * it. Read it only: a test that needs another stack, or changes one, synthesizes its own.
 */
export function defaultSynth(): Synthesized {
  if (!shared) {
    const stubs = new StubLambdas(routeList, workerList);
    // The synthesized templates stay readable (nested ones are read from the assembly on disk) until the
    // process ends, which vitest does by killing it: a watchdog deletes the directory then.
    removeWhenGone(stubs.dir);
    shared = synthesize({ lambdasDir: stubs.dir });
  }
  return shared;
}

/** The logical id of a construct's resource in its own stack's template. */
export function logicalId(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);
}

const templates = new WeakMap<Stack, Template>();

/** The template of the stack (root or nested) that holds `construct`. */
export function templateOf(construct: IConstruct): Template {
  const stack = Stack.of(construct);
  let template = templates.get(stack);
  if (!template) {
    template = Template.fromStack(stack);
    templates.set(stack, template);
  }
  return template;
}

/** Every stack of an app (root and nested) with its template. */
export function everyTemplate(app: App): { stack: Stack; template: Template }[] {
  return app.node
    .findAll()
    .filter((construct): construct is Stack => Stack.isStack(construct))
    .map((stack) => ({ stack, template: templateOf(stack) }));
}

/** A resource of `construct`'s template by the construct (its CloudFormation JSON). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function resourceOf(construct: IConstruct): { Type: string; Properties: Record<string, any>; DeletionPolicy?: string } {
  return (templateOf(construct).toJSON().Resources as Resources)[logicalId(construct)] as never;
}

/** Every IAM statement of a function's execution role, read from the function's own template. */
export function statementsOf(fn: LedgerFunction): Statement[] {
  return statementsOfFunction(templateOf(fn.function), logicalId(fn.function));
}

/**
 * `value` (JSON of `construct`'s template) with each reference to a parameter of a nested
 * stack replaced by what the parent passes for it: the terms of the root template, so a
 * table ARN reads `{"Fn::GetAtt": [<table>, "Arn"]}` in whichever stack it is used.
 */
export function inRootTerms<T>(construct: IConstruct, value: T): T {
  let stack = Stack.of(construct);
  let result: unknown = value;
  while (NestedStack.isNestedStack(stack) && stack.nestedStackParent && stack.nestedStackResource) {
    const parent = stack.nestedStackParent;
    const passed = (templateOf(parent).toJSON().Resources as Resources)[parent.getLogicalId(stack.nestedStackResource)]?.Properties
      ?.Parameters as Record<string, unknown> | undefined;
    result = substitute(result, passed ?? {});
    stack = parent;
  }
  return result as T;
}

function substitute(value: unknown, parameters: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => substitute(item, parameters));
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { Ref?: unknown }).Ref;
  if (typeof ref === 'string' && Object.keys(value).length === 1 && ref in parameters) return parameters[ref];
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, parameters)]));
}

/** A function's IAM statements in the terms of the root template (inRootTerms). */
export function rootStatementsOf(fn: LedgerFunction): Statement[] {
  return inRootTerms(fn.function, statementsOf(fn));
}

/** `{"Fn::GetAtt": [<logical id>, "Arn"]}` of a construct, as its own template names it. */
export const arnOf = (construct: IConstruct) => ({ 'Fn::GetAtt': [logicalId(construct), 'Arn'] });
/** `{"Ref": <logical id>}` of a construct, as its own template names it. */
export const refOf = (construct: IConstruct) => ({ Ref: logicalId(construct) });

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
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

/** Every Resource kind a route or worker may use (route-spec.ts). */
export const EVERY_RESOURCE = [
  'table:read',
  'table:write',
  'table:rate-counter',
  'data:read',
  'data:write',
  'anchors:read',
  'anchors:write',
  'signer',
  'signer:public-key',
  'secrets:encrypt',
  'secrets:decrypt',
  'cursors',
  'queue:events',
  'queue:exports',
  'queue:deliveries',
  'identity',
  'data:erase',
  'data:erase-exports',
] as const satisfies readonly Resource[];

/** One route per Resource kind: every grant, and every cdk-nag finding a grant can cause. */
export const EVERY_USE_ROUTES: RouteSpec[] = EVERY_RESOURCE.map((use, index) => ({
  id: `Uses${index}`,
  method: 'POST',
  path: `/test/uses/${index}`,
  handler: `test/uses-${index}`,
  auth: ['org_owner'],
  summary: `uses ${use}`,
  response: { status: 200, body: null },
  uses: [use],
}));

/** A worker of each trigger kind. */
export const EVERY_KIND_WORKERS: WorkerSpec[] = [
  { id: 'QueueWorker', handler: 'queue-worker', trigger: { kind: 'queue', queue: 'events', batchSize: 10 }, uses: ['table:read', 'secrets:decrypt'], timeoutSeconds: 30 },
  { id: 'ScheduleWorker', handler: 'schedule-worker', trigger: { kind: 'schedule' }, uses: ['table:write', 'anchors:write'], timeoutSeconds: 120, memorySize: 2048, reservedConcurrency: 1 },
  { id: 'StreamWorker', handler: 'stream-worker', trigger: { kind: 'stream', batchSize: 100, itemTypes: ['operation', 'epoch'] }, uses: ['queue:events'], timeoutSeconds: 60 },
];
