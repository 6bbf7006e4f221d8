/**
 * An execution role that keeps every statement granted to it inside the role (its inline
 * `Policies`), where CDK would add a separate AWS::IAM::Policy per role. The permissions are
 * the same; each function costs one CloudFormation resource fewer, which matters because the
 * service's stack has a role per function and CloudFormation allows 500 resources per stack.
 */
import { PolicyDocument, Role, type AddToPrincipalPolicyResult, type PolicyStatement, type RoleProps } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

export class InlineRole extends Role {
  /** Never empty once the role is in use: every function's role is granted its log group (function.ts). */
  private readonly granted: PolicyDocument;

  constructor(scope: Construct, id: string, props: RoleProps) {
    const grants = new PolicyDocument();
    super(scope, id, { ...props, inlinePolicies: { ...props.inlinePolicies, grants } });
    this.granted = grants;
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.granted.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}
