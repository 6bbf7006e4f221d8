/**
 * Values of the root stack (table, buckets, keys, queues) as a nested stack sees them.
 *
 * CDK turns a reference from a nested stack to its parent into a parameter with a generated
 * name. IAM statements that name a bucket's objects (`<bucket ARN>/*`) are cdk-nag findings
 * that must be acknowledged with the exact text cdk-nag prints, which includes that name; a
 * parameter with a name of our choosing makes the finding the same in every nested stack and
 * lets nag-suppressions.ts write it down.
 */
import { CfnParameter, NestedStack, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** `value` (a token of the root stack) in `scope`'s stack: itself in the root, the parameter `name` in a nested stack. */
export function valueIn(scope: IConstruct, name: string, value: string): string {
  const stack = Stack.of(scope);
  if (!NestedStack.isNestedStack(stack)) return value;
  let parameter = stack.node.tryFindChild(name) as CfnParameter | undefined;
  if (!parameter) {
    parameter = new CfnParameter(stack, name, { type: 'String' });
    stack.setParameter(name, value);
  }
  return parameter.valueAsString;
}

/**
 * How cdk-nag prints a resolved token in a finding: `<LogicalId>` for a Ref (a parameter or a
 * resource), `<LogicalId.Attribute>` for a Fn::GetAtt.
 */
export function nagToken(scope: IConstruct, value: string): string {
  const resolved = Stack.of(scope).resolve(value) as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (resolved.Ref) return `<${resolved.Ref}>`;
  if (resolved['Fn::GetAtt']) return `<${resolved['Fn::GetAtt'].join('.')}>`;
  throw new Error(`cannot name ${JSON.stringify(resolved)} as cdk-nag does`);
}
