/**
 * JSON objects in the data bucket (DESIGN.md, Data: payloads and receipts live in S3). One
 * implementation (S3 in AWS, s3rver locally), so no port: this is the only module that talks
 * S3 for the ledger.
 */
import { GetObjectCommand, HeadObjectCommand, NoSuchKey, NotFound, PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../../config.js';
import { s3 } from '../../runtime.js';

function isMissing(error: unknown): boolean {
  if (error instanceof NoSuchKey || error instanceof NotFound) return true;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return status === 404;
}

/** Stores `body` (already serialized JSON, e.g. canonical bytes) under `key`. */
export async function putJsonObject(key: string, body: string | Uint8Array): Promise<void> {
  await s3().send(
    new PutObjectCommand({ Bucket: config().dataBucket, Key: key, Body: body, ContentType: 'application/json' }),
  );
}

/** The object's text, or null when it does not exist. */
export async function getJsonText(key: string): Promise<string | null> {
  try {
    const out = await s3().send(new GetObjectCommand({ Bucket: config().dataBucket, Key: key }));
    return out.Body ? await out.Body.transformToString('utf-8') : null;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

export async function objectExists(key: string): Promise<boolean> {
  try {
    await s3().send(new HeadObjectCommand({ Bucket: config().dataBucket, Key: key }));
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}
