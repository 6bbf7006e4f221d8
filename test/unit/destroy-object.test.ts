/**
 * destroyObject (lambdas/store/objects.ts) against S3's own answers (aws-sdk-client-mock): in a
 * versioned bucket every version and delete marker of exactly the key is deleted by its id,
 * across pages, and longer keys under the same prefix are left alone; a store without
 * versions (s3rver answers MethodNotAllowed) gets a plain delete; any other failure, a denied
 * listing above all, is not taken for that. s3rver has no versions, so the e2e tests cannot
 * show the versioned path; the rehearsal shows its IAM side. In a process of its own
 * (vitest.config.ts WITH_MODULE_STATE): it configures the S3 client with placeholders.
 */
import { DeleteObjectCommand, ListObjectVersionsCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../lambdas/config.js';
import { destroyObject } from '../../lambdas/store/objects.js';
import { AWS_PLACEHOLDER_ENV } from '../support/placeholder-env.js';

const s3Mock = mockClient(S3Client);
const saved = { ...process.env };
const KEY = 'exports/org_a/0197.json';

beforeAll(() => {
  Object.assign(process.env, AWS_PLACEHOLDER_ENV, { AWS_REGION: 'eu-west-1' });
  resetConfigForTests();
});
afterAll(() => {
  s3Mock.restore();
  process.env = saved;
  resetConfigForTests();
});
beforeEach(() => s3Mock.reset());

const deleted = () => s3Mock.commandCalls(DeleteObjectCommand).map((call) => [call.args[0].input.Key, call.args[0].input.VersionId]);
const failure = (status: number, name: string) => new S3ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: status }, message: name });

describe('destroyObject', () => {
  it('deletes every version and delete marker of exactly the key, page after page', async () => {
    s3Mock
      .on(ListObjectVersionsCommand, { Prefix: KEY })
      .resolvesOnce({
        IsTruncated: true,
        NextKeyMarker: KEY,
        NextVersionIdMarker: 'v2',
        Versions: [{ Key: KEY, VersionId: 'v3' }, { Key: KEY, VersionId: 'v2' }],
        DeleteMarkers: [{ Key: KEY, VersionId: 'm1' }],
      })
      .resolvesOnce({ IsTruncated: false, Versions: [{ Key: KEY, VersionId: 'v1' }, { Key: `${KEY}.other`, VersionId: 'x1' }] });
    s3Mock.on(DeleteObjectCommand).resolves({});
    await destroyObject(KEY);
    expect(deleted().sort()).toEqual([[KEY, 'm1'], [KEY, 'v1'], [KEY, 'v2'], [KEY, 'v3']]);
    expect(s3Mock.commandCalls(ListObjectVersionsCommand)[1]!.args[0].input).toMatchObject({ KeyMarker: KEY, VersionIdMarker: 'v2' });
  });

  it('deletes nothing for a key that never had a version', async () => {
    s3Mock.on(ListObjectVersionsCommand).resolves({ IsTruncated: false });
    await destroyObject(KEY);
    expect(deleted()).toEqual([]);
  });

  it('falls back to a plain delete where the store keeps no versions, and never on a denied listing', async () => {
    s3Mock.on(ListObjectVersionsCommand).rejects(failure(405, 'MethodNotAllowed'));
    s3Mock.on(DeleteObjectCommand).resolves({});
    await destroyObject(KEY);
    expect(deleted()).toEqual([[KEY, undefined]]);
    s3Mock.reset();
    s3Mock.on(ListObjectVersionsCommand).rejects(failure(403, 'AccessDenied'));
    await expect(destroyObject(KEY)).rejects.toThrow('AccessDenied');
    expect(deleted()).toEqual([]);
  });
});
