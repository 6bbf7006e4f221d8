/**
 * What the synthesized templates deploy, read the way CloudFormation, Lambda and API Gateway
 * read them: every Node.js function with its bundle (`Code` → the asset directory in cdk.out,
 * `Handler` → file and export), its environment and its role's policies with every reference
 * resolved to the rehearsal's resources; the HTTP API's routes; the event source mappings
 * (SQS queues, the table's stream); the EventBridge schedules; and the stateful resources
 * the engines must create (table, buckets, keys, queues, user pool and client).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { resourcesOfType, type Assembly, type CfnResource, type Json, type StackTemplate } from './assembly.js';
import { ACCOUNT, REGION, Resolver, type Physical } from './resolve.js';

export interface PolicyDocument {
  Version?: string;
  Statement: Record<string, Json>[] | Record<string, Json>;
}

export interface RehearsalFunction {
  /** The construct id (`SignUpEmail`, `SealEpochs`): the name the rehearsal reports. */
  readonly id: string;
  readonly stack: StackTemplate;
  readonly logicalId: string;
  readonly functionName: string;
  readonly arn: string;
  readonly roleArn: string;
  readonly runtime: string;
  /** The asset directory and the module file and export `Handler` names. */
  readonly bundleDir: string;
  readonly moduleFile: string;
  readonly exportName: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** `Environment.Variables`, resolved; exactly what Lambda would set from the template. */
  readonly environment: Readonly<Record<string, string>>;
  /** The role's policies (AWS::IAM::Policy attached to it and its inline policies), resolved. */
  readonly policies: readonly { readonly name: string; readonly document: PolicyDocument }[];
  /** Managed policy ARNs on the role; their documents are not in the template. */
  readonly managedPolicyArns: readonly string[];
  /** The role's tags, which IAM offers conditions as `aws:PrincipalTag/<key>` (a key policy may ask for one). */
  readonly roleTags: Readonly<Record<string, string>>;
}

export interface RehearsalRoute {
  readonly routeKey: string;
  readonly method: string;
  readonly path: string;
  readonly functionId: string;
}

export interface EventSourceMapping {
  readonly functionId: string;
  readonly sourceArn: string;
  readonly kind: 'sqs' | 'dynamodb-stream';
  readonly batchSize: number;
  readonly reportBatchItemFailures: boolean;
  /** Lambda event filter patterns (JSON), any of which lets a record through. */
  readonly filterPatterns: readonly Record<string, Json>[];
  readonly maximumRetryAttempts: number | undefined;
}

export interface Schedule {
  readonly ruleName: string;
  readonly expression: string;
  readonly functionId: string;
}

interface TableDefinition {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly streamArn: string;
  readonly properties: Record<string, Json>;
}

export interface QueueDefinition {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly url: string;
  readonly visibilityTimeoutSeconds: number;
  readonly deadLetter: { readonly arn: string; readonly maxReceiveCount: number } | undefined;
}

export interface Deployment {
  readonly assembly: Assembly;
  readonly resolver: Resolver;
  readonly functions: readonly RehearsalFunction[];
  /** Functions the templates hold that are not the service's (CDK's deploy-time custom resources), with why. */
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
  readonly routes: readonly RehearsalRoute[];
  readonly mappings: readonly EventSourceMapping[];
  readonly schedules: readonly Schedule[];
  readonly tables: readonly TableDefinition[];
  readonly buckets: readonly { readonly logicalId: string; readonly name: string; readonly arn: string; readonly objectLock: boolean; readonly policy: PolicyDocument | undefined }[];
  readonly keys: readonly { readonly logicalId: string; readonly arn: string; readonly spec: 'ECC_NIST_EDWARDS25519' | 'SYMMETRIC_DEFAULT'; readonly policy: PolicyDocument }[];
  readonly queues: readonly QueueDefinition[];
  readonly userPools: readonly { readonly logicalId: string; readonly arn: string; readonly properties: Record<string, Json> }[];
}

/** Ids the local engines assign (cognito-local's pool and client ids), and where the API listens. */
interface EngineIds {
  userPoolId(logicalId: string): string;
  userPoolClientId(logicalId: string): string;
  /** `127.0.0.1:PORT`: what a CloudFront distribution's DomainName and the HTTP API's endpoint stand for. */
  readonly apiHost: string;
  readonly sqsEndpoint: string;
}

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex');

/** `AgentLedger-SignUpEmailFunction2C464DC8`-style names, as CloudFormation makes them (stack name, logical id, suffix). */
function physicalName(stack: StackTemplate, logicalId: string, max = 64): string {
  const root = stack.path.split('/')[0]!;
  return `${root}-${logicalId}`.slice(0, max);
}

function physicalIds(ids: EngineIds) {
  return (stack: StackTemplate, logicalId: string, resource: CfnResource): Physical => {
    const name = physicalName(stack, logicalId);
    const arn = (service: string, path: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${path}`;
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table': {
        const tableArn = arn('dynamodb', `table/${name}`);
        return { ref: name, attributes: { Arn: tableArn, StreamArn: `${tableArn}/stream/rehearsal` } };
      }
      case 'AWS::S3::Bucket': {
        const bucket = name.toLowerCase().slice(0, 63);
        return { ref: bucket, attributes: { Arn: `arn:aws:s3:::${bucket}`, DomainName: `${bucket}.s3.amazonaws.com`, RegionalDomainName: `${bucket}.s3.${REGION}.amazonaws.com` } };
      }
      case 'AWS::KMS::Key': {
        const h = shortHash(`${stack.path}/${logicalId}`);
        const keyId = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
        return { ref: keyId, attributes: { Arn: arn('kms', `key/${keyId}`), KeyId: keyId } };
      }
      case 'AWS::KMS::Alias':
        return { ref: `alias/${name}`, attributes: {} };
      case 'AWS::SQS::Queue': {
        const url = `${ids.sqsEndpoint}/${ACCOUNT}/${name}`;
        return { ref: url, attributes: { Arn: arn('sqs', name), QueueName: name, QueueUrl: url } };
      }
      case 'AWS::SNS::Topic': {
        const topicArn = arn('sns', name);
        return { ref: topicArn, attributes: { TopicArn: topicArn, TopicName: name } };
      }
      case 'AWS::Cognito::UserPool': {
        const id = ids.userPoolId(logicalId);
        return { ref: id, attributes: { Arn: arn('cognito-idp', `userpool/${id}`), ProviderName: `cognito-idp.${REGION}.amazonaws.com/${id}`, UserPoolId: id } };
      }
      case 'AWS::Cognito::UserPoolClient': {
        const id = ids.userPoolClientId(logicalId);
        return { ref: id, attributes: { ClientId: id } };
      }
      case 'AWS::Lambda::Function':
        return { ref: name, attributes: { Arn: arn('lambda', `function:${name}`) } };
      case 'AWS::IAM::Role':
        return { ref: name, attributes: { Arn: `arn:aws:iam::${ACCOUNT}:role/${name}`, RoleId: `AROA${shortHash(name).slice(0, 17).toUpperCase()}` } };
      case 'AWS::Logs::LogGroup':
        return { ref: name, attributes: { Arn: arn('logs', `log-group:${name}:*`) } };
      case 'AWS::ApiGatewayV2::Api':
        return { ref: 'rehearsal', attributes: { ApiEndpoint: `http://${ids.apiHost}`, ApiId: 'rehearsal' } };
      case 'AWS::ApiGatewayV2::Integration':
        // Route targets name integrations by this id (`integrations/<Ref>`).
        return { ref: logicalId, attributes: {} };
      case 'AWS::CloudFront::Distribution':
        return { ref: 'REHEARSAL', attributes: { DomainName: ids.apiHost, Id: 'REHEARSAL' } };
      case 'AWS::Events::Rule':
        return { ref: name, attributes: { Arn: arn('events', `rule/${name}`) } };
      default:
        return { ref: name, attributes: {} };
    }
  };
}

/** The construct id of a function: the path segment before `Function` in `aws:cdk:path`. */
function functionId(resource: CfnResource, logicalId: string): string {
  const path = String(resource.Metadata?.['aws:cdk:path'] ?? '').split('/');
  const at = path.lastIndexOf('Function');
  return at > 0 ? path[at - 1]! : logicalId;
}

const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export function readDeployment(assembly: Assembly, ids: EngineIds): Deployment {
  const resolver = new Resolver(physicalIds(ids)).withStacks(assembly.stacks);
  const resolveRecord = (stack: StackTemplate, value: Json | undefined) => (value === undefined ? {} : (resolver.resolve(stack, value) as Record<string, Json>));

  const functions: RehearsalFunction[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const { stack, logicalId, resource } of resourcesOfType(assembly, 'AWS::Lambda::Function')) {
    const props = resource.Properties ?? {};
    const id = functionId(resource, logicalId);
    const runtime = String(props.Runtime ?? '');
    const asset = resource.Metadata?.['aws:asset:path'];
    if (!runtime.startsWith('nodejs') || typeof asset !== 'string') {
      skipped.push({ id: `${id} (${String(resource.Metadata?.['aws:cdk:path'] ?? logicalId)})`, reason: `runtime ${runtime || 'none'}: a CDK deploy-time custom resource, not a function of the service` });
      continue;
    }
    const handler = String(props.Handler);
    const dot = handler.lastIndexOf('.');
    const roleArn = resolver.text(stack, props.Role!, `${logicalId} Role`);
    const roleLogicalId = (props.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const role = stack.template.Resources[roleLogicalId]!;
    const policies = Object.entries(stack.template.Resources)
      .filter(([, candidate]) => candidate.Type === 'AWS::IAM::Policy')
      .filter(([, policy]) => asArray(policy.Properties?.Roles as Json[]).some((ref) => (ref as { Ref?: string }).Ref === roleLogicalId))
      .map(([policyId, policy]) => ({ name: policyId, document: resolver.resolve(stack, policy.Properties!.PolicyDocument!) as unknown as PolicyDocument }));
    for (const inline of asArray(role.Properties?.Policies as Json[])) {
      const entry = inline as { PolicyName: string; PolicyDocument: Json };
      policies.push({ name: entry.PolicyName, document: resolver.resolve(stack, entry.PolicyDocument) as unknown as PolicyDocument });
    }
    const environment = resolveRecord(stack, (props.Environment as { Variables?: Json } | undefined)?.Variables);
    const roleTags = Object.fromEntries(asArray(role.Properties?.Tags as Json[]).map((tag) => [String((tag as { Key: Json }).Key), String((tag as { Value: Json }).Value)]));
    functions.push({
      id,
      stack,
      logicalId,
      functionName: resolver.ref(stack, logicalId),
      arn: resolver.getAtt(stack, logicalId, 'Arn'),
      roleArn,
      runtime,
      bundleDir: join(assembly.dir, asset),
      moduleFile: `${handler.slice(0, dot)}.mjs`,
      exportName: handler.slice(dot + 1),
      timeoutSeconds: Number(props.Timeout ?? 3),
      memoryMb: Number(props.MemorySize ?? 128),
      environment: Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, String(value)])),
      policies,
      roleTags,
      managedPolicyArns: asArray(resolver.resolve(stack, role.Properties?.ManagedPolicyArns ?? []) as string[]),
    });
  }
  const byArn = new Map(functions.map((fn) => [fn.arn, fn.id]));
  const byName = new Map(functions.map((fn) => [fn.functionName, fn.id]));
  const functionOf = (stack: StackTemplate, value: Json, what: string) => {
    const resolved = resolver.text(stack, value, what);
    const found = byArn.get(resolved) ?? byName.get(resolved);
    if (!found) throw new Error(`${stack.path}: ${what} names ${resolved}, not a function of the service`);
    return found;
  };

  const routes = resourcesOfType(assembly, 'AWS::ApiGatewayV2::Route').map(({ stack, logicalId, resource }) => {
    const props = resource.Properties!;
    const routeKey = String(props.RouteKey);
    if (props.AuthorizationType !== undefined && props.AuthorizationType !== 'NONE') {
      throw new Error(`route ${routeKey} uses authorizer ${String(props.AuthorizationType)}, which the rehearsal does not run`);
    }
    const target = resolver.text(stack, props.Target!, `${logicalId} Target`).replace(/^integrations\//, '');
    const integration = stack.template.Resources[target];
    if (!integration) throw new Error(`${stack.path}: route ${routeKey} targets unknown integration ${target}`);
    const [method, path] = routeKey === '$default' ? ['ANY', '$default'] : (routeKey.split(' ') as [string, string]);
    return { routeKey, method, path, functionId: functionOf(stack, integration.Properties!.IntegrationUri!, `integration of ${routeKey}`) };
  });

  const tables = resourcesOfType(assembly, 'AWS::DynamoDB::Table').map(({ stack, logicalId, resource }) => ({
    logicalId,
    name: resolver.ref(stack, logicalId),
    arn: resolver.getAtt(stack, logicalId, 'Arn'),
    streamArn: resolver.getAtt(stack, logicalId, 'StreamArn'),
    properties: resource.Properties!,
  }));

  const mappings = resourcesOfType(assembly, 'AWS::Lambda::EventSourceMapping').map(({ stack, resource }) => {
    const props = resource.Properties!;
    const sourceArn = resolver.text(stack, props.EventSourceArn!, 'EventSourceArn');
    const filters = ((props.FilterCriteria as { Filters?: { Pattern: string }[] } | undefined)?.Filters ?? []).map((filter) => JSON.parse(filter.Pattern) as Record<string, Json>);
    return {
      functionId: functionOf(stack, props.FunctionName!, 'event source mapping FunctionName'),
      sourceArn,
      kind: sourceArn.includes(':sqs:') ? ('sqs' as const) : ('dynamodb-stream' as const),
      batchSize: Number(props.BatchSize ?? 10),
      reportBatchItemFailures: asArray(props.FunctionResponseTypes as string[]).includes('ReportBatchItemFailures'),
      filterPatterns: filters,
      maximumRetryAttempts: props.MaximumRetryAttempts === undefined ? undefined : Number(props.MaximumRetryAttempts),
    };
  });

  const schedules = resourcesOfType(assembly, 'AWS::Events::Rule').flatMap(({ stack, logicalId, resource }) =>
    asArray(resource.Properties?.Targets as Json[]).map((target) => ({
      ruleName: resolver.ref(stack, logicalId),
      expression: String(resource.Properties?.ScheduleExpression ?? ''),
      functionId: functionOf(stack, (target as { Arn: Json }).Arn, `rule ${logicalId} target`),
    })),
  );

  const bucketPolicies = resourcesOfType(assembly, 'AWS::S3::BucketPolicy').map(({ stack, resource }) => ({
    bucket: resolver.text(stack, resource.Properties!.Bucket!, 'BucketPolicy Bucket'),
    document: resolver.resolve(stack, resource.Properties!.PolicyDocument!) as unknown as PolicyDocument,
  }));
  const buckets = resourcesOfType(assembly, 'AWS::S3::Bucket').map(({ stack, logicalId, resource }) => {
    const name = resolver.ref(stack, logicalId);
    return {
      logicalId,
      name,
      arn: resolver.getAtt(stack, logicalId, 'Arn'),
      objectLock: resource.Properties?.ObjectLockEnabled === true,
      policy: bucketPolicies.find((policy) => policy.bucket === name)?.document,
    };
  });

  const keys = resourcesOfType(assembly, 'AWS::KMS::Key').map(({ stack, logicalId, resource }) => ({
    logicalId,
    arn: resolver.getAtt(stack, logicalId, 'Arn'),
    spec: (resource.Properties?.KeySpec === 'ECC_NIST_EDWARDS25519' ? 'ECC_NIST_EDWARDS25519' : 'SYMMETRIC_DEFAULT') as 'ECC_NIST_EDWARDS25519' | 'SYMMETRIC_DEFAULT',
    policy: resolver.resolve(stack, resource.Properties!.KeyPolicy!) as unknown as PolicyDocument,
  }));

  const queues = resourcesOfType(assembly, 'AWS::SQS::Queue').map(({ stack, logicalId, resource }) => {
    const redrive = resource.Properties?.RedrivePolicy ? (resolver.resolve(stack, resource.Properties.RedrivePolicy) as { deadLetterTargetArn: string; maxReceiveCount: number }) : undefined;
    return {
      logicalId,
      name: resolver.getAtt(stack, logicalId, 'QueueName'),
      arn: resolver.getAtt(stack, logicalId, 'Arn'),
      url: resolver.ref(stack, logicalId),
      visibilityTimeoutSeconds: Number(resource.Properties?.VisibilityTimeout ?? 30),
      deadLetter: redrive ? { arn: redrive.deadLetterTargetArn, maxReceiveCount: Number(redrive.maxReceiveCount) } : undefined,
    };
  });

  const userPools = resourcesOfType(assembly, 'AWS::Cognito::UserPool').map(({ stack, logicalId, resource }) => ({
    logicalId,
    arn: resolver.getAtt(stack, logicalId, 'Arn'),
    properties: resource.Properties!,
  }));

  return { assembly, resolver, functions, skipped, routes, mappings, schedules, tables, buckets, keys, queues, userPools };
}

/** The user pool clients of the templates: their pool's logical id and the client's properties. */
export function userPoolClients(assembly: Assembly): { logicalId: string; poolLogicalId: string; properties: Record<string, Json> }[] {
  return resourcesOfType(assembly, 'AWS::Cognito::UserPoolClient').map(({ logicalId, resource }) => ({
    logicalId,
    poolLogicalId: String((resource.Properties!.UserPoolId as { Ref: string }).Ref),
    properties: resource.Properties!,
  }));
}
