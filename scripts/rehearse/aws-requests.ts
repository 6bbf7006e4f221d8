/**
 * What an AWS request asks for, in IAM's terms: the caller (the access key id of the SigV4
 * signature, which the rehearsal gives each function its own of), and each (action, resource)
 * pair IAM authorizes for it. DynamoDB's transactions are authorized per item
 * (dynamodb:PutItem, UpdateItem, DeleteItem, ConditionCheckItem), a Query on an index on
 * `table/<name>/index/<index>`; S3's operations map from method, path and sub-resource to
 * the action the S3 docs list (a multipart upload's parts are s3:PutObject, its abort
 * s3:AbortMultipartUpload); Cognito's user-token calls are unsigned and need no IAM grant.
 */
import { ACCOUNT, REGION } from './resolve.js';

export interface Authorization {
  readonly action: string;
  readonly resource: string;
  /** Request-specific condition keys IAM sees (kms:EncryptionContext:<key>...). */
  readonly context?: Readonly<Record<string, string | string[]>>;
}

export interface AwsRequestFacts {
  /** The SigV4 access key id, or undefined for an unsigned request. */
  readonly accessKeyId: string | undefined;
  readonly service: string;
  /** The API operation (`TransactWriteItems`, `PutObject`...). */
  readonly operation: string;
  readonly authorizations: readonly Authorization[];
}

export interface ResourceNames {
  keyArn(keyId: string): string;
  queueArn(url: string): string;
}

function accessKeyOf(headers: Record<string, string | string[] | undefined>, url: URL): string | undefined {
  const auth = String(headers.authorization ?? '');
  const header = /Credential=([^/]+)\//.exec(auth)?.[1];
  return header ?? url.searchParams.get('X-Amz-Credential')?.split('/')[0] ?? undefined;
}

type Body = Record<string, unknown>;

/**
 * The partition key value a single-item call or a table Query names, as IAM's
 * `dynamodb:LeadingKeys` (a grant may be limited to some partitions: lib/grants.ts).
 */
function leadingKeys(operation: string, body: Body): { context?: Record<string, string[]> } {
  const attribute = (value: unknown) => (value as { S?: string } | undefined)?.S;
  let key: string | undefined;
  if (operation === 'Query' && !body.IndexName) {
    const placeholder = /(?:^|\s)pk\s*=\s*(:\w+)/.exec(String(body.KeyConditionExpression ?? ''))?.[1];
    key = placeholder ? attribute((body.ExpressionAttributeValues as Body | undefined)?.[placeholder]) : undefined;
  } else {
    key = attribute(((body.Key ?? body.Item) as Body | undefined)?.pk);
  }
  return key === undefined ? {} : { context: { 'dynamodb:LeadingKeys': [key] } };
}

function dynamodb(operation: string, body: Body): Authorization[] {
  const table = (name: unknown) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${String(name)}`;
  switch (operation) {
    case 'Query':
    case 'Scan':
      return [{ action: `dynamodb:${operation}`, resource: body.IndexName ? `${table(body.TableName)}/index/${String(body.IndexName)}` : table(body.TableName), ...leadingKeys(operation, body) }];
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys((body.RequestItems ?? {}) as Body).map((name) => ({ action: `dynamodb:${operation}`, resource: table(name) }));
    case 'TransactWriteItems':
    case 'TransactGetItems': {
      const actions: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };
      return ((body.TransactItems ?? []) as Body[]).flatMap((item) =>
        Object.entries(item).map(([kind, spec]) => ({ action: `dynamodb:${actions[kind] ?? kind}`, resource: table((spec as Body).TableName) })),
      );
    }
    default:
      return [{ action: `dynamodb:${operation}`, resource: body.TableName ? table(body.TableName) : '*', ...leadingKeys(operation, body) }];
  }
}

/** S3 operation and IAM action from the request line (path-style: /bucket/key). */
function s3(method: string, url: URL, headers: Record<string, string | string[] | undefined>): { operation: string; authorizations: Authorization[] } {
  const [, bucket = '', ...rest] = url.pathname.split('/');
  const key = rest.map((part) => decodeURIComponent(part)).join('/');
  const q = url.searchParams;
  const bucketArn = `arn:aws:s3:::${bucket}`;
  const objectArn = `${bucketArn}/${key}`;
  const one = (operation: string, action: string, resource = objectArn) => ({ operation, authorizations: [{ action: `s3:${action}`, resource }] });
  if (!key) {
    if (method === 'GET' && q.has('uploads')) return one('ListMultipartUploads', 'ListBucketMultipartUploads', bucketArn);
    if (method === 'GET' && q.has('versions')) return one('ListObjectVersions', 'ListBucketVersions', bucketArn);
    if (method === 'GET') return one('ListObjectsV2', 'ListBucket', bucketArn);
    if (method === 'HEAD') return one('HeadBucket', 'ListBucket', bucketArn);
    if (method === 'POST' && q.has('delete')) return one('DeleteObjects', 'DeleteObject', `${bucketArn}/*`);
    return one(`${method} bucket`, `${method}Bucket`, bucketArn);
  }
  if (q.has('uploadId')) {
    if (method === 'PUT') return one('UploadPart', 'PutObject');
    if (method === 'POST') return one('CompleteMultipartUpload', 'PutObject');
    if (method === 'DELETE') return one('AbortMultipartUpload', 'AbortMultipartUpload');
    if (method === 'GET') return one('ListParts', 'ListMultipartUploadParts');
  }
  if (method === 'POST' && q.has('uploads')) return one('CreateMultipartUpload', 'PutObject');
  if (q.has('retention')) return one(method === 'PUT' ? 'PutObjectRetention' : 'GetObjectRetention', method === 'PUT' ? 'PutObjectRetention' : 'GetObjectRetention');
  if (q.has('legal-hold')) return one(method === 'PUT' ? 'PutObjectLegalHold' : 'GetObjectLegalHold', method === 'PUT' ? 'PutObjectLegalHold' : 'GetObjectLegalHold');
  if (q.has('tagging')) return one(method === 'PUT' ? 'PutObjectTagging' : 'GetObjectTagging', method === 'PUT' ? 'PutObjectTagging' : 'GetObjectTagging');
  const versioned = q.has('versionId');
  if (method === 'GET' || method === 'HEAD') return one(method === 'GET' ? 'GetObject' : 'HeadObject', versioned ? 'GetObjectVersion' : 'GetObject');
  if (method === 'DELETE') return one('DeleteObject', versioned ? 'DeleteObjectVersion' : 'DeleteObject');
  if (method === 'PUT') {
    const authorizations = [{ action: 's3:PutObject', resource: objectArn }];
    const copySource = headers['x-amz-copy-source'];
    if (copySource) authorizations.push({ action: 's3:GetObject', resource: `arn:aws:s3:::${decodeURIComponent(String(copySource).replace(/^\//, '').split('?')[0]!)}` });
    // Object Lock settings on the upload itself need their own grant (S3 docs, PutObject permissions).
    if (headers['x-amz-object-lock-mode'] || headers['x-amz-object-lock-retain-until-date']) authorizations.push({ action: 's3:PutObjectRetention', resource: objectArn });
    if (headers['x-amz-object-lock-legal-hold']) authorizations.push({ action: 's3:PutObjectLegalHold', resource: objectArn });
    return { operation: copySource ? 'CopyObject' : 'PutObject', authorizations };
  }
  return one(`${method} object`, `${method}Object`);
}

export function describeRequest(
  service: 'dynamodb' | 's3' | 'kms' | 'sqs' | 'cognito-idp',
  request: { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: Buffer },
  names: ResourceNames,
): AwsRequestFacts {
  const url = new URL(request.url, 'http://rehearsal');
  const accessKeyId = accessKeyOf(request.headers, url);
  if (service === 's3') return { accessKeyId, service, ...s3(request.method, url, request.headers) };
  const target = String(request.headers['x-amz-target'] ?? '');
  const operation = target.slice(target.indexOf('.') + 1);
  let body: Body = {};
  try {
    body = request.body.length ? (JSON.parse(request.body.toString('utf8')) as Body) : {};
  } catch {
    body = {};
  }
  switch (service) {
    case 'dynamodb':
      return { accessKeyId, service, operation, authorizations: dynamodb(operation, body) };
    case 'kms': {
      // Grants may be conditioned on the encryption context (lib/grants.ts: the audit cursors').
      const encryptionContext = (body.EncryptionContext ?? {}) as Record<string, string>;
      const context: Record<string, string | string[]> = Object.fromEntries(Object.entries(encryptionContext).map(([key, value]) => [`kms:EncryptionContext:${key}`, value]));
      if (Object.keys(encryptionContext).length > 0) context['kms:EncryptionContextKeys'] = Object.keys(encryptionContext);
      return { accessKeyId, service, operation, authorizations: [{ action: `kms:${operation}`, resource: body.KeyId ? names.keyArn(String(body.KeyId)) : '*', context }] };
    }
    case 'sqs':
      // SQS authorizes a batch as its single action (SendMessageBatch is sqs:SendMessage).
      return { accessKeyId, service, operation, authorizations: [{ action: `sqs:${operation.replace(/Batch$/, '')}`, resource: names.queueArn(String(body.QueueUrl)) }] };
    case 'cognito-idp':
      return {
        accessKeyId,
        service,
        operation,
        // InitiateAuth, GetUserAttributeVerificationCode, VerifyUserAttribute, RevokeToken are
        // called with the user's tokens, unsigned: IAM does not authorize them.
        authorizations: accessKeyId
          ? [{ action: `cognito-idp:${operation}`, resource: `arn:aws:cognito-idp:${REGION}:${ACCOUNT}:userpool/${String(body.UserPoolId ?? '*')}` }]
          : [],
      };
  }
}
