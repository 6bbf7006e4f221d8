// The rehearsal's IAM check on grants conditioned on KMS's encryption context (lib/grants.ts:
// the receipt key's wrapping key, the audit cursors): allowed under the context the grant
// names, denied under another or none, as in AWS (scripts/rehearse/encryption-context-keys.ts
// says why the check renames the key for its simulator).
import { describe, expect, it } from 'vitest';
import type { Deployment, RehearsalFunction } from '../../scripts/rehearse/deployment.js';
import { evaluableContext } from '../../scripts/rehearse/encryption-context-keys.js';
import { IamCheck } from '../../scripts/rehearse/iam-check.js';

const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/6132d8d1-5380-a893-af79-ab1aa750442c';
const ROLE = 'arn:aws:iam::123456789012:role/AgentLedger-SubmitOperationRole';
const keyPolicy = {
  Version: '2012-10-17',
  Statement: [
    { Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::123456789012:root' }, Action: 'kms:*', Resource: '*' },
    { Sid: 'OnlySigningFunctionsMayDecrypt', Effect: 'Deny', Principal: { AWS: '*' }, Action: ['kms:Decrypt'], Resource: '*', Condition: { StringNotEquals: { 'aws:PrincipalTag/agent-ledger:receipt-signer': 'true' } } },
  ],
};
const grant = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['kms:Decrypt', 'kms:GenerateDataKey'], Resource: KEY, Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'receipt-key' } } }] };

function check(tags: Record<string, string> = { 'agent-ledger:receipt-signer': 'true' }) {
  const fn = { id: 'SubmitOperation', roleArn: ROLE, roleTags: tags, policies: [{ name: 'SubmitOperationRoleDefaultPolicy', document: grant }] } as unknown as RehearsalFunction;
  const deployment = { keys: [{ logicalId: 'ReceiptKeyWrap', arn: KEY, spec: 'SYMMETRIC_DEFAULT', policy: keyPolicy }], buckets: [] } as unknown as Deployment;
  return { fn, iam: new IamCheck(deployment) };
}

describe('grants conditioned on the encryption context', () => {
  it('are allowed under the context they name, for each action they list', async () => {
    const { fn, iam } = check();
    for (const action of ['kms:GenerateDataKey', 'kms:Decrypt']) {
      const verdict = await iam.evaluate(fn, { action, resource: KEY, context: { 'kms:EncryptionContext:purpose': 'receipt-key', 'kms:EncryptionContext:generation': '1', 'kms:EncryptionContextKeys': ['purpose', 'generation'] } });
      expect(verdict, action).toEqual({ allowed: true, result: 'Allowed' });
    }
  });

  it('are denied under another context, without one, or for a role the key policy denies', async () => {
    const { fn, iam } = check();
    expect((await iam.evaluate(fn, { action: 'kms:GenerateDataKey', resource: KEY, context: { 'kms:EncryptionContext:purpose': 'cursor' } })).allowed).toBe(false);
    expect((await iam.evaluate(fn, { action: 'kms:GenerateDataKey', resource: KEY, context: {} })).allowed).toBe(false);
    const untagged = check({});
    expect(await untagged.iam.evaluate(untagged.fn, { action: 'kms:Decrypt', resource: KEY, context: { 'kms:EncryptionContext:purpose': 'receipt-key' } })).toEqual({ allowed: false, result: 'ExplicitlyDenied' });
  });

  it('refuses to evaluate policies that condition on two different context keys rather than conflate them', () => {
    const two = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'kms:Decrypt', Resource: KEY, Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'a', 'kms:EncryptionContext:tenant': 'b' } } }] };
    expect(() => evaluableContext({}, [two], undefined)).toThrow(/purpose, tenant/);
  });
});
