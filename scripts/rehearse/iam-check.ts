/**
 * Each recorded call evaluated as IAM would evaluate it, with @cloud-copilot/iam-simulate:
 * the calling function's role policies as identity policies, the bucket policy or key policy
 * as the resource policy, the role as the principal, in the rehearsal's account. The
 * request context is what the call has in AWS: over TLS 1.2 or later (the bucket policies
 * deny anything else; the rehearsal's engines speak plain HTTP on 127.0.0.1 only).
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { Authorization } from './aws-requests.js';
import { evaluableContext } from './encryption-context-keys.js';
import type { Deployment, PolicyDocument, RehearsalFunction } from './deployment.js';
import { ACCOUNT, REGION } from './resolve.js';

interface Verdict {
  readonly allowed: boolean;
  /** `Allowed`, `ImplicitlyDenied`, `ExplicitlyDenied`, or the simulator's validation error. */
  readonly result: string;
}

export class IamCheck {
  private readonly cache = new Map<string, Promise<Verdict>>();

  constructor(private readonly deployment: Deployment) {}

  /** The resource policy IAM consults for `resource`: its bucket's or its key's. */
  private resourcePolicy(resource: string): PolicyDocument | undefined {
    if (resource.startsWith('arn:aws:s3:::')) {
      const bucket = resource.slice('arn:aws:s3:::'.length).split('/')[0];
      return this.deployment.buckets.find((candidate) => candidate.name === bucket)?.policy;
    }
    if (resource.startsWith('arn:aws:kms:')) return this.deployment.keys.find((key) => key.arn === resource)?.policy;
    return undefined;
  }

  evaluate(fn: RehearsalFunction, { action, resource, context = {} }: Authorization): Promise<Verdict> {
    const cacheKey = `${fn.id}\n${action}\n${resource}\n${JSON.stringify(context)}`;
    let verdict = this.cache.get(cacheKey);
    if (!verdict) {
      verdict = this.run(fn, action, resource, context);
      this.cache.set(cacheKey, verdict);
    }
    return verdict;
  }

  private async run(fn: RehearsalFunction, action: string, resource: string, context: Readonly<Record<string, string | string[]>>): Promise<Verdict> {
    // kms:EncryptionContext:<key> renamed where the simulator needs it (encryption-context-keys.ts).
    const evaluable = evaluableContext(context, fn.policies.map((policy) => policy.document), this.resourcePolicy(resource));
    const { resourcePolicy } = evaluable;
    const response = await runSimulation(
      {
        request: {
          principal: fn.roleArn,
          action,
          resource: { resource, accountId: ACCOUNT },
          contextVariables: {
            'aws:SecureTransport': 'true',
            's3:TlsVersion': '1.3',
            'aws:RequestedRegion': REGION,
            'aws:PrincipalAccount': ACCOUNT,
            'aws:PrincipalArn': fn.roleArn,
            'aws:PrincipalType': 'AssumedRole',
            ...Object.fromEntries(Object.entries(fn.roleTags).map(([key, value]) => [`aws:PrincipalTag/${key}`, value])),
            ...evaluable.context,
          },
        },
        identityPolicies: fn.policies.map((policy, i) => ({ name: policy.name, policy: evaluable.identityPolicies[i]! })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
      },
      {},
    );
    if (response.resultType === 'error') return { allowed: false, result: `simulator error: ${JSON.stringify(response.errors)}` };
    return { allowed: response.overallResult === 'Allowed', result: response.overallResult };
  }
}

/** IAM's wildcard match (`*` and `?`), case-sensitive as resources are. */
function wildcard(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, ignoreCase ? 'i' : '').test(value);
}

export interface UnusedGrant {
  readonly action: string;
  readonly resource: string;
}

/**
 * The least-privilege report of one function: each (action, resource) its role allows that
 * no recorded call used. `logs:` and `xray:` grants are the Lambda runtime's (its log group,
 * active tracing), which no SDK call in the function makes, so they are left out.
 */
export function unusedGrants(fn: RehearsalFunction, used: readonly Authorization[]): UnusedGrant[] {
  const unused: UnusedGrant[] = [];
  for (const policy of fn.policies) {
    const statements = Array.isArray(policy.document.Statement) ? policy.document.Statement : [policy.document.Statement];
    for (const statement of statements) {
      if (statement.Effect !== 'Allow') continue;
      const actions = ([] as unknown[]).concat(statement.Action ?? []).map(String);
      const resources = ([] as unknown[]).concat(statement.Resource ?? []).map(String);
      for (const action of actions) {
        if (action.startsWith('logs:') || action.startsWith('xray:')) continue;
        for (const resource of resources) {
          const usedOnce = used.some((call) => wildcard(action, call.action, true) && wildcard(resource, call.resource));
          if (!usedOnce) unused.push({ action, resource });
        }
      }
    }
  }
  return unused;
}
