/**
 * ListObjectVersions for s3rver, which keeps no versions and answers the call with
 * MethodNotAllowed: the rehearsal's S3 front answers it from ListObjectsV2 instead, each
 * object its one version with id `null` (S3's id of a version written while versioning was
 * off). The product then deletes each version by id, as it does in the versioned bucket of
 * AWS (lambdas/store/objects.ts destroyObject), and s3rver, ignoring the version id, deletes
 * the object: so the rehearsal's IAM check sees the calls AWS would authorize
 * (s3:ListBucketVersions, s3:DeleteObjectVersion), not s3rver's fallback.
 */
import type { AwsRequestFacts } from './aws-requests.js';

export interface Rewrite {
  /** The request's path and query as sent on to the engine. */
  readonly path: string;
  /** The engine's answer body as the caller gets it. */
  translate(body: Buffer): Buffer;
}

/** Each `<Contents>` of a ListBucketResult as a `<Version>` of a ListVersionsResult. */
function versionsOf(listing: string, bucket: string, prefix: string): string {
  const versions = [...listing.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)].map(([, inner]) => {
    const member = (name: string) => (new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(inner!)?.[1] ?? '');
    return `<Version><Key>${member('Key')}</Key><VersionId>null</VersionId><IsLatest>true</IsLatest><LastModified>${member('LastModified')}</LastModified><ETag>${member('ETag')}</ETag><Size>${member('Size')}</Size><StorageClass>STANDARD</StorageClass></Version>`;
  });
  const truncated = /<IsTruncated>true<\/IsTruncated>/.test(listing);
  if (truncated) throw new Error('rehearsal: a ListObjectVersions stand-in listing of more than 1000 objects');
  return `<?xml version="1.0" encoding="UTF-8"?><ListVersionsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${prefix}</Prefix><KeyMarker></KeyMarker><VersionIdMarker></VersionIdMarker><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${versions.join('')}</ListVersionsResult>`;
}

export function s3VersionsStandIn(facts: AwsRequestFacts, path: string): Rewrite | undefined {
  if (facts.operation !== 'ListObjectVersions') return undefined;
  const url = new URL(path, 'http://rehearsal');
  const bucket = url.pathname.split('/')[1] ?? '';
  const prefix = url.searchParams.get('prefix') ?? '';
  const escaped = prefix.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    path: `/${bucket}?list-type=2&max-keys=1000&prefix=${encodeURIComponent(prefix)}`,
    translate: (body) => Buffer.from(versionsOf(body.toString('utf8'), bucket, escaped)),
  };
}
