/**
 * The synthesized cloud assembly as CloudFormation would deploy it: the root template and
 * every nested stack's template (found through the `aws:asset:path` metadata CDK writes on
 * each AWS::CloudFormation::Stack resource), with each nested stack's parameters as its
 * parent passes them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface CfnResource {
  Type: string;
  Properties?: Record<string, Json>;
  Metadata?: Record<string, Json>;
  DependsOn?: Json;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Parameters?: Record<string, { Type: string; Default?: Json }>;
  Outputs?: Record<string, { Value: Json }>;
}

export interface StackTemplate {
  /** `AgentLedger` for the root, `AgentLedger/<NestedStackResourceLogicalId>` below it. */
  readonly path: string;
  readonly file: string;
  readonly template: CfnTemplate;
  /** The parent stack and the logical id of the AWS::CloudFormation::Stack resource there. */
  readonly parent?: { readonly stack: StackTemplate; readonly logicalId: string };
}

export interface Assembly {
  readonly dir: string;
  readonly root: StackTemplate;
  readonly stacks: readonly StackTemplate[];
}

/** The one top-level stack of the app (`<name>.template.json`, not `*.nested.template.json`). */
export function readAssembly(dir: string, edit?: (file: string, template: CfnTemplate) => void): Assembly {
  const roots = readdirSync(dir).filter((file) => file.endsWith('.template.json') && !file.endsWith('.nested.template.json'));
  if (roots.length !== 1) throw new Error(`expected one top-level template in ${dir}, found ${roots.join(', ') || 'none'}`);
  const load = (file: string): CfnTemplate => {
    const template = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CfnTemplate;
    edit?.(file, template);
    return template;
  };
  const stacks: StackTemplate[] = [];
  const visit = (stack: StackTemplate) => {
    stacks.push(stack);
    for (const [logicalId, resource] of Object.entries(stack.template.Resources)) {
      if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
      const file = resource.Metadata?.['aws:asset:path'];
      if (typeof file !== 'string') throw new Error(`nested stack ${stack.path}/${logicalId} has no aws:asset:path metadata`);
      visit({ path: `${stack.path}/${logicalId}`, file, template: load(file), parent: { stack, logicalId } });
    }
  };
  const rootFile = roots[0]!;
  visit({ path: rootFile.replace(/\.template\.json$/, ''), file: rootFile, template: load(rootFile) });
  return { dir, root: stacks[0]!, stacks };
}

/** Every resource of `type` in every stack, with the stack that holds it. */
export function resourcesOfType(assembly: Assembly, type: string): { stack: StackTemplate; logicalId: string; resource: CfnResource }[] {
  return assembly.stacks.flatMap((stack) =>
    Object.entries(stack.template.Resources)
      .filter(([, resource]) => resource.Type === type)
      .map(([logicalId, resource]) => ({ stack, logicalId, resource })),
  );
}
