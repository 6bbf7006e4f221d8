/**
 * The stack in its deployed shape on this machine (docs/DEPLOY.md, Rehearsal): the engines
 * (DynamoDB Local, s3rver, cognito-local, the KMS and SQS stand-ins) created as the templates
 * define them, each behind a recording front; every function of the templates loaded from
 * its bundle with the template's environment; the HTTP API, event source mappings and
 * schedules wired as the templates wire them. `report()` evaluates every recorded call
 * against IAM and lists what failed.
 */
import { CreateTableCommand, UpdateTimeToLiveCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { join } from 'node:path';
import { ConfigError, parseConfig } from '../../lambdas/config.js';
import { verificationToken } from '../../lambdas/adapters/aws/cognito-identity-provider.js';
import { localDynamoClient, startDynamoDbLocal } from '../../local/dynamodb-local.js';
import { freePort } from '../../local/free-port.js';
import { startS3Local } from '../../local/s3-local.js';
import { readAssembly, type CfnTemplate, type Json } from './assembly.js';
import type { Authorization } from './aws-requests.js';
import { startCognitoLocal } from './cognito-local.js';
import { readDeployment, userPoolClients, type Deployment, type RehearsalFunction } from './deployment.js';
import { FunctionHost, lambdaRuntimeEnvironment, type Invocation } from './function-host.js';
import { IamCheck, unusedGrants, type UnusedGrant } from './iam-check.js';
import { startKmsStandIn } from './kms-standin.js';
import { startRecordingFront } from './recording-front.js';
import { s3VersionsStandIn } from './s3-versions-standin.js';
import { SqsQueues, startSqsStandIn } from './sqs-standin.js';
import { startApiFront } from './api-front.js';
import { startTriggers, type Triggers } from './triggers.js';

/** Service settings `npm start` takes from its environment, applied to a function only where the template sets the variable. */
export const MAPPED_SETTINGS = ['LEDGER_EPOCH_MS', 'LEDGER_EPOCH_GRACE_MS', 'LEDGER_RATE_LIMIT_RPS'] as const;
/** Settings the template leaves out by default; given to the rehearsal, they are added to every function (and listed as rehearsal-only). */
export const ADDED_SETTINGS = ['LEDGER_WEBHOOK_ALLOW_LOOPBACK', 'LEDGER_TSA_URL', 'LEDGER_CALLER_CACHE_MS'] as const;

export interface RehearsalOptions {
  /** The cloud assembly directory (`cdk synth -o`). */
  cdkOut: string;
  /** The API's port (default, or 0: a free one). */
  port?: number;
  /** Where the engines keep their data; default a scratch directory removed on stop. */
  dataDir?: string;
  /** Edits each template as read (tests remove a statement or a variable). */
  edit?: (file: string, template: CfnTemplate) => void;
  /** Values for MAPPED_SETTINGS and ADDED_SETTINGS. */
  settings?: Partial<Record<(typeof MAPPED_SETTINGS)[number] | (typeof ADDED_SETTINGS)[number], string>>;
  /** Run the schedules every this many ms (`--serve`); otherwise only through fireSchedules(). */
  scheduleEveryMs?: number;
  /** Each verification mail Cognito sends, with the link the console accepts. */
  onMail?: (mail: { to: string; link: string; code: string }) => void;
  /** Which functions to load before the API opens (default all); the others load at their first invocation. */
  preload?: (functionId: string) => boolean;
  /** Each log line of each function. */
  onLog?: (functionId: string, line: string) => void;
}

interface FunctionReport {
  readonly id: string;
  readonly loaded: boolean;
  readonly invocations: number;
  readonly calls: number;
  readonly denied: number;
  readonly unused: readonly UnusedGrant[];
}

interface Problem {
  readonly functionId: string;
  readonly kind: 'denied' | 'environment' | 'load' | 'invocation';
  readonly message: string;
}

export interface RehearsalReport {
  readonly functions: readonly FunctionReport[];
  readonly problems: readonly Problem[];
  readonly skipped: Deployment['skipped'];
  /** Every variable the rehearsal adds to a function beyond the template's and Lambda's own. */
  readonly rehearsalOnly: Readonly<Record<string, string>>;
  readonly overridden: Readonly<Record<string, string>>;
}

export interface Rehearsal {
  readonly url: string;
  readonly deployment: Deployment;
  /** The last verification code cognito-local mailed to `email`. */
  mailedCode(email: string): string | undefined;
  fireSchedules(): Promise<void>;
  report(): Promise<RehearsalReport>;
  stop(): Promise<void>;
}

interface RecordedCall extends Authorization {
  readonly operation: string;
  readonly status: number;
}

const SECRET = 'rehearsal-secret-access-key';

export async function startRehearsal(options: RehearsalOptions): Promise<Rehearsal> {
  const stoppers: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.splice(0).reverse()) await Promise.resolve(stop()).catch(() => {});
  };
  try {
    const assembly = readAssembly(options.cdkOut, options.edit);
    // Port 0 is "any free one" (npm start's PORT=0): chosen here, since the templates' URLs name it before the API listens.
    const apiPort = options.port || (await freePort());
    const sqsPort = await freePort();
    const apiHost = `127.0.0.1:${apiPort}`;
    const problems: Problem[] = [];
    const codes = new Map<string, string>();
    // The template joins https:// onto the CloudFront domain; the rehearsal serves plain HTTP on loopback.
    const publicUrl = `http://${apiHost}`;

    // The user pool and its clients first: cognito-local assigns their ids, which the templates' references resolve to.
    const cognito = await startCognitoLocal(({ destination, code }) => {
      codes.set(destination.toLowerCase(), code);
      options.onMail?.({ to: destination, code, link: `${publicUrl}/api/auth/verify-email?token=${verificationToken(destination, code)}` });
    });
    stoppers.push(() => cognito.stop());
    const poolIds = new Map<string, string>();
    const clientIds = new Map<string, string>();
    for (const stack of assembly.stacks) {
      for (const [logicalId, resource] of Object.entries(stack.template.Resources)) {
        if (resource.Type !== 'AWS::Cognito::UserPool') continue;
        // Intrinsics (an SES identity, a Lambda trigger) name nothing cognito-local has; the pool's own settings are literals.
        const literal = Object.fromEntries(Object.entries(resource.Properties ?? {}).filter(([, value]) => !JSON.stringify(value).includes('"Ref"') && !JSON.stringify(value).includes('Fn::')));
        delete literal.DeletionProtection;
        delete literal.UserPoolTier;
        poolIds.set(logicalId, await cognito.createPool(literal));
      }
    }
    for (const client of userPoolClients(assembly)) {
      const { UserPoolId: _pool, ...properties } = client.properties;
      clientIds.set(client.logicalId, await cognito.createClient(poolIds.get(client.poolLogicalId)!, properties as Record<string, Json>));
    }
    const deployment = readDeployment(assembly, {
      userPoolId: (id) => poolIds.get(id) ?? '',
      userPoolClientId: (id) => clientIds.get(id) ?? '',
      apiHost,
      sqsEndpoint: `http://127.0.0.1:${sqsPort}`,
    });

    const kms = await startKmsStandIn(deployment.keys);
    stoppers.push(() => kms.stop());
    const queues = new SqsQueues(deployment.queues);
    const sqs = await startSqsStandIn(queues);
    stoppers.push(() => sqs.stop());
    // The JVM's start on a busy 2-core machine (the rehearsal runs after the whole suite in CI) can pass 30 s: test/global-setup.ts's allowance.
    const dynamo = await startDynamoDbLocal({ ...(options.dataDir ? { inMemory: false, dbPath: join(options.dataDir, 'dynamodb') } : { inMemory: true }), readyTimeoutMs: 120_000 });
    stoppers.push(() => dynamo.stop());
    const dynamoClient = localDynamoClient(dynamo.endpoint);
    stoppers.push(() => dynamoClient.destroy());
    for (const table of deployment.tables) {
      const { TimeToLiveSpecification, StreamSpecification, DeletionProtectionEnabled: _protection, PointInTimeRecoverySpecification: _pitr, SSESpecification: _sse, Tags: _tags, ...properties } = table.properties as Record<string, unknown>;
      // CloudFormation's StreamSpecification names the view type only; the API also wants StreamEnabled.
      const stream = StreamSpecification ? { StreamSpecification: { StreamEnabled: true, ...(StreamSpecification as { StreamViewType: 'NEW_IMAGE' }) } } : {};
      await dynamoClient.send(new CreateTableCommand({ ...(properties as unknown as CreateTableCommandInput), ...stream, TableName: table.name }));
      if (TimeToLiveSpecification) await dynamoClient.send(new UpdateTimeToLiveCommand({ TableName: table.name, TimeToLiveSpecification: TimeToLiveSpecification as never }));
    }
    // s3rver streams a multipart upload's parts from files; a CompleteMultipartUpload the SDK
    // retries (its 2 s idle timeout on a loaded machine) finds them gone and s3rver's read
    // stream throws outside any handler. S3 answers that retry with an error; so does this.
    const s3rverRace = (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' && String(error.path ?? '').includes('._S3rver_uploads')) {
        process.stderr.write(`rehearsal: s3rver lost a retried multipart upload's part: ${error.path}\n`);
        return;
      }
      throw error;
    };
    process.on('uncaughtException', s3rverRace);
    stoppers.push(() => void process.off('uncaughtException', s3rverRace));
    const s3 = await startS3Local({ ...(options.dataDir ? { directory: join(options.dataDir, 's3') } : {}), buckets: deployment.buckets.map((bucket) => bucket.name) });
    stoppers.push(() => s3.stop());

    const accessKeys = new Map<string, string>();
    const calls = new Map<string, RecordedCall[]>(deployment.functions.map((fn) => [fn.id, []]));
    const names = {
      keyArn: (keyId: string) => deployment.keys.find((key) => key.arn === keyId || key.arn.endsWith(`/${keyId}`))?.arn ?? keyId,
      queueArn: (url: string) => deployment.queues.find((queue) => queue.url === url)?.arn ?? url,
    };
    const record = (facts: { accessKeyId: string | undefined; operation: string; authorizations: readonly Authorization[] }, status: number) => {
      const id = facts.accessKeyId ? accessKeys.get(facts.accessKeyId) : undefined;
      if (!id) return; // the rehearsal's own set-up calls, or an unsigned user-token call
      for (const authorization of facts.authorizations) calls.get(id)!.push({ ...authorization, operation: facts.operation, status });
    };
    const fronts = {
      dynamodb: await startRecordingFront('dynamodb', dynamo.endpoint, names, record),
      // s3rver keeps no versions: ListObjectVersions answered from its listing (s3-versions-standin.ts).
      s3: await startRecordingFront('s3', s3.endpoint, names, record, 0, undefined, s3VersionsStandIn),
      kms: await startRecordingFront('kms', kms.endpoint, names, record),
      sqs: await startRecordingFront('sqs', sqs.endpoint, names, record, sqsPort),
      // A request that mails a code is answered once the mail is out (onMail), so that whoever
      // reads the mail after the product's answer finds it, as in a mailbox.
      cognito: await startRecordingFront('cognito-idp', cognito.endpoint, names, record, 0, (facts, body) => cognito.mailWait(facts.operation, body)),
    };
    for (const front of Object.values(fronts)) stoppers.push(() => front.stop());

    const rehearsalOnly: Record<string, string> = {
      AWS_ENDPOINT_URL_DYNAMODB: fronts.dynamodb.endpoint,
      AWS_ENDPOINT_URL_S3: fronts.s3.endpoint,
      AWS_ENDPOINT_URL_KMS: fronts.kms.endpoint,
      AWS_ENDPOINT_URL_SQS: fronts.sqs.endpoint,
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: fronts.cognito.endpoint,
      // s3rver stores aws-chunked uploads verbatim; these make the SDK send plain bodies (lambdas/store/clients.ts sets the same for LEDGER_S3_ENDPOINT).
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      // Lambda runs Node 22; the SDK's notice about Node 20 concerns this machine only.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const overridden: Record<string, string> = {};
    for (const name of ADDED_SETTINGS) {
      const value = options.settings?.[name];
      if (value !== undefined && value !== '') rehearsalOnly[name] = value;
    }

    const hosts = new Map<string, FunctionHost>();
    deployment.functions.forEach((fn, index) => {
      const accessKeyId = `ASIAREHEARSAL${String(index).padStart(4, '0')}`;
      accessKeys.set(accessKeyId, fn.id);
      const environment = { ...fn.environment };
      for (const name of MAPPED_SETTINGS) {
        const value = options.settings?.[name];
        if (value !== undefined && value !== '' && name in environment) {
          environment[name] = value;
          overridden[name] = value;
        }
      }
      // The service's own origin (lambdas/http/same-origin.ts: a cookie-authenticated write from
      // a browser without Sec-Fetch-Site must carry it as Origin) is where the rehearsal serves.
      if (environment.LEDGER_PUBLIC_URL === `https://${apiHost}`) {
        environment.LEDGER_PUBLIC_URL = publicUrl;
        overridden.LEDGER_PUBLIC_URL = publicUrl;
      }
      // What the code reads at cold start (lambdas/config.ts), checked before anything runs.
      try {
        parseConfig({ ...environment, AWS_REGION: 'eu-west-1' });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems.push({ functionId: fn.id, kind: 'environment', message: `${error.message} (the template does not give it)` });
      }
      const env = {
        ...environment,
        ...lambdaRuntimeEnvironment(fn),
        AWS_ACCESS_KEY_ID: accessKeyId,
        AWS_SECRET_ACCESS_KEY: SECRET,
        AWS_SESSION_TOKEN: `rehearsal-session-${index}`,
        ...rehearsalOnly,
      };
      hosts.set(
        fn.id,
        new FunctionHost(fn, env, (host, line) => {
          const missing = /missing required environment variable (\w+)/.exec(line);
          if (missing && !problems.some((problem) => problem.functionId === host.id && problem.message.includes(missing[1]!))) {
            problems.push({ functionId: host.id, kind: 'environment', message: `missing required environment variable ${missing[1]} (read at run time; the template does not give it)` });
          }
          options.onLog?.(host.id, line);
        }),
      );
    });
    stoppers.push(() => Promise.all([...hosts.values()].map((host) => host.stop())).then(() => {}));

    // Load every bundle, a few at a time (each parses a megabyte of minified code).
    const pending = [...hosts.values()].filter((host) => options.preload?.(host.fn.id) ?? true);
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let host = pending.shift(); host; host = pending.shift()) {
          await host.load().catch((error: Error) => problems.push({ functionId: host!.fn.id, kind: 'load', message: `bundle does not load: ${error.message.split('\n')[0]}` }));
        }
      }),
    );

    const invoke = async (functionId: string, event: unknown, requestId: string): Promise<Invocation> => {
      const host = hosts.get(functionId);
      if (!host) return { ok: false, error: { message: `no function ${functionId}` } };
      return host.invoke(event, requestId);
    };
    const onFailure = (functionId: string, what: string, detail?: string) =>
      problems.push({ functionId, kind: 'invocation', message: detail === undefined ? what : `${what}: ${detail}` });
    const api = await startApiFront(deployment.routes, invoke, onFailure, apiPort);
    stoppers.push(() => api.stop());
    const table = deployment.tables[0];
    let triggers: Triggers | undefined;
    if (table) {
      triggers = await startTriggers({
        mappings: deployment.mappings,
        schedules: deployment.schedules,
        queues,
        dynamo: dynamoClient,
        dynamoEndpoint: dynamo.endpoint,
        tableName: table.name,
        invoke,
        record: (functionId, authorizations) => calls.get(functionId)!.push(...authorizations.map((authorization) => ({ ...authorization, operation: 'event source mapping', status: 200 }))),
        onFailure,
        ...(options.scheduleEveryMs === undefined ? {} : { scheduleEveryMs: options.scheduleEveryMs }),
      });
      const started = triggers;
      stoppers.push(() => started.stop());
    }

    const iam = new IamCheck(deployment);
    return {
      url: api.url,
      deployment,
      mailedCode: (email) => codes.get(email.toLowerCase()),
      fireSchedules: () => triggers?.fireSchedules() ?? Promise.resolve(),
      stop: stopAll,
      report: async () => {
        const all = [...problems];
        const functions: FunctionReport[] = [];
        for (const fn of deployment.functions) {
          const made = calls.get(fn.id)!;
          const distinct = [...new Map(made.map((call) => [`${call.action} ${call.resource} ${JSON.stringify(call.context ?? {})}`, call])).values()];
          let denied = 0;
          for (const call of distinct) {
            const verdict = await iam.evaluate(fn, call);
            if (!verdict.allowed) {
              denied += 1;
              all.push({ functionId: fn.id, kind: 'denied', message: `${call.action} on ${call.resource} (${call.operation}) is ${verdict.result}: ${missingStatement(fn, call)}` });
            }
          }
          const host = hosts.get(fn.id)!;
          functions.push({ id: fn.id, loaded: host.loaded, invocations: host.invocations, calls: made.length, denied, unused: unusedGrants(fn, distinct) });
        }
        return { functions, problems: all, skipped: deployment.skipped, rehearsalOnly, overridden };
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** What the role lacks, in the words of a fix. */
function missingStatement(fn: RehearsalFunction, call: Authorization): string {
  const policies = fn.policies.map((policy) => policy.name).join(', ') || 'none';
  return `no statement of ${fn.roleArn.split('/').pop()} (policies: ${policies}) allows { "Effect": "Allow", "Action": "${call.action}", "Resource": "${call.resource}" }`;
}
