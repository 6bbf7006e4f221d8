/**
 * The data bucket as an insider with read access to it sees it: every object under a prefix,
 * with its bytes as text, read straight from the store the test stack configured (s3rver),
 * not through the service. Tests of erasure look here for copies the service missed.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { config } from '../../lambdas/config.js';
import { s3 } from '../../lambdas/store/clients.js';

export async function bucketObjects(prefix: string): Promise<{ key: string; text: string }[]> {
  const objects: { key: string; text: string }[] = [];
  let token: string | undefined;
  do {
    const page = await s3().send(new ListObjectsV2Command({ Bucket: config().dataBucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
    for (const { Key } of page.Contents ?? []) {
      const out = await s3().send(new GetObjectCommand({ Bucket: config().dataBucket, Key: Key! }));
      objects.push({ key: Key!, text: Buffer.from(await out.Body!.transformToByteArray()).toString('latin1') });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}
