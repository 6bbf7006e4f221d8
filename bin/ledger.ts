/**
 * CDK app entry (cdk.json: `npx tsx bin/ledger.ts`). The AWS Solutions checks of cdk-nag run
 * as a policy-validation plugin: any finding not acknowledged in lib/nag-suppressions.ts
 * fails `cdk synth`, so a new route or resource cannot silently weaken the stack.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LedgerStack } from '../lib/ledger-stack.js';

const app = new App();
new LedgerStack(app, 'AgentLedger', {
  description: 'agent-ledger: signed, hash-chained, Merkle-anchored ledger of agent operations',
});
// cdk-nag 3 is a validation plugin (Validations), no longer an Aspect.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
