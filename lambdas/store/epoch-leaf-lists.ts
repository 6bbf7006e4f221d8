/**
 * Epoch leaf lists in the anchors bucket (docs/ARCHITECTURE.md, Shape: "S3 holds ... epoch leaf lists";
 * in AWS under Object Lock in compliance mode, lib/data.ts). Write-once by construction: the
 * key names the root (domain/epochs/leaf-list.ts), so a second put writes the same bytes.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../config.js';
import { s3 } from './clients.js';

export async function putLeafList(key: string, body: string): Promise<void> {
  await s3().send(
    new PutObjectCommand({
      Bucket: config().anchorsBucket,
      Key: key,
      Body: body,
      ContentType: 'application/json',
      // S3 requires an integrity header on puts to a bucket with Object Lock retention;
      // Content-MD5 works with every client checksum setting (s3rver locally included).
      ContentMD5: createHash('md5').update(body).digest('base64'),
    }),
  );
}

export async function getLeafListText(key: string): Promise<string> {
  const out = await s3().send(new GetObjectCommand({ Bucket: config().anchorsBucket, Key: key }));
  if (!out.Body) throw new Error(`leaf list ${key} has no body`);
  return out.Body.transformToString('utf-8');
}
