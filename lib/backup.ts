/**
 * An optional daily AWS Backup of the table (context `tableBackup`), on top of its
 * point-in-time recovery: PITR restores any second of the last 35 days, a backup plan keeps
 * daily copies for `tableBackupRetentionDays` in a vault that `tableBackupVaultLock` can make
 * immutable (governance: removable by IAM principals allowed to; compliance: by nobody once
 * its 3-day grace has passed).
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';
import type { VaultLockMode } from './settings.js';

/** Days a compliance lock can still be removed after the deploy that sets it (AWS Backup's minimum). */
export const COMPLIANCE_LOCK_GRACE_DAYS = 3;

export interface LedgerBackupProps {
  readonly table: Table;
  readonly retentionDays: number;
  readonly vaultLock: VaultLockMode;
}

export class LedgerBackup extends Construct {
  readonly vault: BackupVault;
  readonly plan: BackupPlan;

  constructor(scope: Construct, id: string, props: LedgerBackupProps) {
    super(scope, id);
    const retention = Duration.days(props.retentionDays);
    this.vault = new BackupVault(this, 'Vault', {
      backupVaultName: `${Stack.of(this).stackName}-table`,
      removalPolicy: RemovalPolicy.RETAIN,
      ...(props.vaultLock === 'none'
        ? {}
        : {
            lockConfiguration: {
              minRetention: retention,
              ...(props.vaultLock === 'compliance' ? { changeableFor: Duration.days(COMPLIANCE_LOCK_GRACE_DAYS) } : {}),
            },
          }),
    });
    this.plan = new BackupPlan(this, 'Plan', { backupVault: this.vault });
    this.plan.addRule(
      new BackupPlanRule({
        ruleName: 'daily',
        scheduleExpression: Schedule.cron({ minute: '0', hour: '3' }),
        deleteAfter: retention,
      }),
    );
    const selection = this.plan.addSelection('Table', { resources: [BackupResource.fromDynamoDbTable(props.table)] });
    Validations.of(selection).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
      reason:
        'AWS Backup assumes this role to back up the table; AWS maintains the service role policy as the services it ' +
        'backs up change (DynamoDB backups need actions beyond the table API), and the role is trusted by AWS Backup only.',
    });
  }
}
