/**
 * Whether the templates of a new version deploy over those of an older one without losing
 * state, offline (docs/DEPLOY.md, Upgrades). CloudFormation replaces a resource whose logical
 * id changes or whose replacement-requiring properties change, and deletes one that is
 * gone; for the stateful ones (table, buckets, keys, user pool and its clients, queues) that
 * loses data or changes ids clients hold. DynamoDB takes one global secondary index created
 * or deleted per table update, so a deploy that adds or removes more fails midway.
 */
import type { Assembly, CfnResource, Json } from './assembly.js';

/** The stateful types and, for each, the properties whose change replaces the resource (CloudFormation resource reference, "Update requires: Replacement"). */
const STATEFUL: Readonly<Record<string, readonly string[]>> = {
  'AWS::DynamoDB::Table': ['TableName', 'KeySchema', 'LocalSecondaryIndexes'],
  'AWS::S3::Bucket': ['BucketName'],
  'AWS::KMS::Key': ['KeySpec', 'KeyUsage', 'MultiRegion'],
  'AWS::Cognito::UserPool': ['UserPoolName', 'UsernameAttributes', 'AliasAttributes'],
  'AWS::Cognito::UserPoolClient': ['UserPoolId', 'GenerateSecret'],
  'AWS::SQS::Queue': ['QueueName', 'FifoQueue'],
};

interface UpgradeFinding {
  readonly severity: 'blocker' | 'step';
  readonly stack: string;
  readonly message: string;
}

const same = (a: Json | undefined, b: Json | undefined) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A key attribute's type, as AttributeDefinitions gives it (a changed type is a changed key schema). */
function keyTypes(resource: CfnResource): Record<string, string> {
  const definitions = (resource.Properties?.AttributeDefinitions ?? []) as { AttributeName: string; AttributeType: string }[];
  const keys = ((resource.Properties?.KeySchema ?? []) as { AttributeName: string }[]).map((key) => key.AttributeName);
  return Object.fromEntries(definitions.filter((definition) => keys.includes(definition.AttributeName)).map((definition) => [definition.AttributeName, definition.AttributeType]));
}

function indexes(resource: CfnResource | undefined): Map<string, string> {
  const list = (resource?.Properties?.GlobalSecondaryIndexes ?? []) as { IndexName: string }[];
  const types = Object.fromEntries(((resource?.Properties?.AttributeDefinitions ?? []) as { AttributeName: string; AttributeType: string }[]).map((d) => [d.AttributeName, d.AttributeType]));
  // An index whose key schema, key types or projection change is deleted and created again: two index updates.
  return new Map(list.map((index) => {
    const keys = (index as unknown as { KeySchema: { AttributeName: string }[] }).KeySchema ?? [];
    return [index.IndexName, JSON.stringify([keys, keys.map((key) => types[key.AttributeName]), (index as unknown as { Projection: Json }).Projection])];
  }));
}

export function compareAssemblies(before: Assembly, after: Assembly): UpgradeFinding[] {
  const findings: UpgradeFinding[] = [];
  const afterStacks = new Map(after.stacks.map((stack) => [stack.path, stack]));
  for (const old of before.stacks) {
    const next = afterStacks.get(old.path);
    const stateful = Object.entries(old.template.Resources).filter(([, resource]) => resource.Type in STATEFUL);
    if (!next) {
      for (const [logicalId, resource] of stateful) findings.push({ severity: 'blocker', stack: old.path, message: `${resource.Type} ${logicalId} would be deleted: its stack is gone` });
      continue;
    }
    for (const [logicalId, resource] of stateful) {
      const now = next.template.Resources[logicalId];
      if (!now || now.Type !== resource.Type) {
        const renamed = Object.keys(next.template.Resources).filter((id) => next.template.Resources[id]!.Type === resource.Type && !(id in old.template.Resources));
        findings.push({
          severity: 'blocker',
          stack: old.path,
          message: `${resource.Type} ${logicalId} would be deleted${renamed.length ? ` and ${renamed.join(', ')} created in its place (a changed logical id is a replacement)` : ''}`,
        });
        continue;
      }
      for (const property of STATEFUL[resource.Type]!) {
        if (!same(resource.Properties?.[property], now.Properties?.[property])) {
          findings.push({ severity: 'blocker', stack: old.path, message: `${resource.Type} ${logicalId}: changing ${property} replaces it (${JSON.stringify(resource.Properties?.[property] ?? null)} → ${JSON.stringify(now.Properties?.[property] ?? null)})` });
        }
      }
      if (resource.Type === 'AWS::DynamoDB::Table') {
        if (!same(keyTypes(resource), keyTypes(now))) findings.push({ severity: 'blocker', stack: old.path, message: `table ${logicalId}: a key attribute's type changes, which replaces it` });
        const was = indexes(resource);
        const will = indexes(now);
        const removed = [...was.keys()].filter((name) => !will.has(name) || will.get(name) !== was.get(name));
        const added = [...will.keys()].filter((name) => !was.has(name) || will.get(name) !== was.get(name));
        if (removed.length + added.length > 1) {
          findings.push({
            severity: 'blocker',
            stack: old.path,
            message: `table ${logicalId}: ${added.length} index(es) created (${added.join(', ') || 'none'}) and ${removed.length} deleted (${removed.join(', ') || 'none'}) in one deploy; DynamoDB takes one per update: release them one per version`,
          });
        } else if (added.length === 1) {
          findings.push({ severity: 'step', stack: old.path, message: `table ${logicalId}: index ${added[0]} is created; the stack update waits while DynamoDB backfills it (minutes per GB), and readers of the index must tolerate it being empty until then` });
        } else if (removed.length === 1) {
          findings.push({ severity: 'step', stack: old.path, message: `table ${logicalId}: index ${removed[0]} is deleted; the previous version's functions still query it until the update completes` });
        }
        if (resource.Properties?.StreamSpecification && !same(resource.Properties.StreamSpecification, now.Properties?.StreamSpecification)) {
          findings.push({ severity: 'step', stack: old.path, message: `table ${logicalId}: the stream changes; records not yet read from the old stream are lost to its consumers, drain them first (ForwardEvents' iterator age at 0)` });
        }
      }
      if (resource.DeletionPolicy === 'Retain' && now.DeletionPolicy !== 'Retain') {
        findings.push({ severity: 'step', stack: old.path, message: `${resource.Type} ${logicalId}: DeletionPolicy is no longer Retain; deleting the stack will now delete it` });
      }
      if (resource.Type === 'AWS::SQS::Queue' && !same(resource.Properties, now.Properties)) {
        findings.push({ severity: 'step', stack: old.path, message: `queue ${logicalId}: settings change in place (${changedKeys(resource, now).join(', ')}); messages in flight stay` });
      }
    }
  }
  // New variables a function reads: the new code needs them, the template gives them; note them for operators who template outside CDK.
  for (const next of after.stacks) {
    const old = before.stacks.find((stack) => stack.path === next.path);
    for (const [logicalId, resource] of Object.entries(next.template.Resources)) {
      if (resource.Type in STATEFUL && !old?.template.Resources[logicalId]) findings.push({ severity: 'step', stack: next.path, message: `${resource.Type} ${logicalId} is created` });
    }
  }
  return findings;
}

function changedKeys(a: CfnResource, b: CfnResource): string[] {
  const keys = new Set([...Object.keys(a.Properties ?? {}), ...Object.keys(b.Properties ?? {})]);
  return [...keys].filter((key) => !same(a.Properties?.[key], b.Properties?.[key]));
}
