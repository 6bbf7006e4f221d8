/**
 * The whole service (docs/ARCHITECTURE.md, Shape): state, keys, queues and the API in the root stack,
 * each area of routes and the workers in nested stacks (api.ts, workers.ts) so no template
 * nears CloudFormation's resource limit, plus alarms, the dashboard and the optional table
 * backup. It only composes: each construct in lib/ does one job, and the route and worker
 * tables decide which functions exist and what each may touch.
 *
 * The stack is environment-agnostic (no account or region), so `cdk synth` needs no AWS
 * credentials and makes no lookups; the target comes from the deploying credentials.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { RouteSpec } from '../lambdas/routes/route-spec.js';
import { notFoundHandler, routeList } from '../lambdas/routes/routes.js';
import { workerList } from '../lambdas/workers/worker-table.js';
import type { WorkerSpec } from '../lambdas/workers/worker-spec.js';
import { LedgerAlarms } from './alarms.js';
import { LedgerApi } from './api.js';
import { LedgerBackup } from './backup.js';
import { functionEntries } from './bundling.js';
import { LedgerDashboard } from './dashboard.js';
import { LedgerConsole } from './console.js';
import { LedgerData } from './data.js';
import { functionEnvironment } from './environment.js';
import type { FunctionUse } from './function.js';
import { FunctionBundles } from './function-code.js';
import { grantUses } from './grants.js';
import { LedgerIdentity, readIdentitySettings } from './identity.js';
import { LedgerKeys } from './keys.js';
import { acknowledgeNagFindings } from './nag-suppressions.js';
import { CONSOLE_DIST, LAMBDAS_DIR } from './paths.js';
import { LedgerQueues } from './queues.js';
import type { LedgerResources } from './resources.js';
import { readSdkTracing, readSettings } from './settings.js';
import { LedgerWorkers } from './workers.js';

export interface LedgerStackProps extends StackProps {
  /** Defaults to routes.ts routeList. */
  readonly routes?: readonly RouteSpec[];
  /** Defaults to worker-table.ts workerList. */
  readonly workers?: readonly WorkerSpec[];
  /** Defaults to the repository's lambdas/; tests point it at stub handlers. */
  readonly lambdasDir?: string;
  /** Defaults to the repository's console/dist. */
  readonly consoleDir?: string;
  /** Client files built beforehand; by default lib/console.ts builds them when CDK bundles the stack. */
  readonly clientDir?: string;
}

export class LedgerStack extends Stack {
  readonly data: LedgerData;
  readonly keys: LedgerKeys;
  readonly queues: LedgerQueues;
  readonly api: LedgerApi;
  readonly workers: LedgerWorkers;
  readonly identity: LedgerIdentity;
  readonly alarms: LedgerAlarms;
  readonly dashboard: LedgerDashboard;
  readonly backup: LedgerBackup | undefined;
  readonly console: LedgerConsole;
  readonly resources: LedgerResources;
  /** Every function of the stack with its `uses`. */
  readonly functions: readonly FunctionUse[];

  constructor(scope: Construct, id: string, props: LedgerStackProps = {}) {
    super(scope, id, props);
    const settings = readSettings(this);
    const routes = props.routes ?? routeList;
    const workers = props.workers ?? workerList;
    const lambdasDir = props.lambdasDir ?? LAMBDAS_DIR;

    this.alarms = new LedgerAlarms(this, 'Alarms', { email: settings.alarmEmail });
    this.data = new LedgerData(this, 'Data', {
      epochRetentionDays: settings.epochRetentionDays,
      dataNoncurrentVersionDays: settings.dataNoncurrentVersionDays,
    });
    this.keys = new LedgerKeys(this, 'Keys', { breakGlassRoleArn: settings.breakGlassRoleArn, receiptSigner: settings.receiptSigner });
    this.queues = new LedgerQueues(this, 'Queues', { workers, alarms: this.alarms });
    const identitySettings = readIdentitySettings(this);
    this.identity = new LedgerIdentity(this, 'Identity', identitySettings);
    this.resources = {
      table: this.data.table,
      dataBucket: this.data.dataBucket,
      anchorsBucket: this.data.anchorsBucket,
      signerKey: this.keys.signer,
      secretsKey: this.keys.secrets,
      receiptKey:
        this.keys.receiptKeyWrap && this.keys.receiptKeyAttestor
          ? { wrapKey: this.keys.receiptKeyWrap, attestKey: this.keys.receiptKeyAttestor, generation: settings.receiptKeyGeneration }
          : undefined,
      queues: this.queues.queues,
      deadLetterQueues: this.queues.deadLetterQueues,
      identity: this.identity,
    };
    const environment = functionEnvironment(this.resources, settings);

    const bundles = new FunctionBundles(this, functionEntries(routes, notFoundHandler, workers, lambdasDir), {
      sdkTracing: readSdkTracing(this),
    });
    this.api = new LedgerApi(this, 'Api', {
      routes,
      bundles,
      environment,
      alarms: this.alarms,
      // Below the KMS quota: one Sign per submission with receiptSigner=kms (settings.ts submitRateLimit).
      routeThrottles: { 'POST /v1/operations': { rateLimit: settings.submitRateLimit, burstLimit: settings.submitBurstLimit } },
    });
    this.workers = new LedgerWorkers(this, 'Workers', {
      workers,
      bundles,
      environment,
      queues: this.queues.queues,
      table: this.data.table,
      alarms: this.alarms,
    });

    this.console = new LedgerConsole(this, 'Console', {
      httpApi: this.api.httpApi,
      logsBucket: this.data.logsBucket,
      consoleDir: props.consoleDir ?? CONSOLE_DIST,
      ...(props.clientDir ? { clientDir: props.clientDir } : {}),
    });

    // Links the API hands out (verification mails, the social sign-in redirect URI) are built
    // on LEDGER_PUBLIC_URL, never on the request's Host header (lambdas/config.ts): the custom
    // domain when context publicUrl names one, else the console's CloudFront address, which
    // serves the API on the same origin (lib/console.ts), so the mailed link lands in the console.
    const publicUrl = identitySettings.publicUrl ?? this.console.url;
    for (const { function: fn } of this.api.functions) fn.function.addEnvironment('LEDGER_PUBLIC_URL', publicUrl);

    this.functions = [...this.api.functions, ...this.workers.functions];
    for (const { function: fn, uses } of this.functions) {
      grantUses(this.resources, fn.role, uses);
      // Only functions whose route uses 'identity' learn the pool (config.ts: LEDGER_IDENTITY=cognito).
      if (uses.includes('identity')) {
        for (const [name, value] of Object.entries(this.identity.environment())) fn.function.addEnvironment(name, value);
      }
    }

    this.alarms.watchService({ api: this.api.httpApi, table: this.data.table });
    this.backup = settings.tableBackup
      ? new LedgerBackup(this, 'Backup', {
          table: this.data.table,
          retentionDays: settings.tableBackupRetentionDays,
          vaultLock: settings.tableBackupVaultLock,
        })
      : undefined;
    // Last, so it lists every alarm made above.
    this.dashboard = new LedgerDashboard(this, 'Dashboard', {
      api: this.api.httpApi,
      table: this.data.table,
      queues: this.queues.queues,
      deadLetterQueues: { ...this.queues.deadLetterQueues, ...this.workers.deadLetterQueues },
      streamLag: this.workers.streamLag,
      alarms: this.alarms,
    });
    acknowledgeNagFindings(this);

    new CfnOutput(this, 'ConsoleUrl', { value: this.console.url, description: 'The web console; the API is on the same origin under /v1, /api and /.well-known' });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base address ({base_url} of docs/API.md)' });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'DataBucketName', { value: this.data.dataBucket.bucketName });
    new CfnOutput(this, 'AnchorsBucketName', { value: this.data.anchorsBucket.bucketName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'SNS topic every alarm notifies' });
    new CfnOutput(this, 'DashboardName', { value: this.dashboard.dashboard.dashboardName });
  }
}
