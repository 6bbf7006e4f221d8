/**
 * JSON objects in the data bucket (docs/ARCHITECTURE.md, Data: payloads and receipts live in S3). One
 * implementation (S3 in AWS, s3rver locally), so no port: this is the only module that talks
 * S3 for the ledger.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, NoSuchKey, NotFound, PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../config.js';
import { s3 } from './clients.js';

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

/**
 * A connection dropped while the body streams (ECONNRESET, "aborted"). The SDK retries
 * failed requests but not a body that breaks after the headers arrived; S3 resets idle or
 * busy connections now and then, and s3rver aborts a read that races a write of the same key.
 */
function isBrokenStream(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return code === 'ECONNRESET' || code === 'EPIPE' || message === 'aborted';
}

const READ_ATTEMPTS = 3;

/** The object's text, or null when it does not exist. */
export async function getJsonText(key: string): Promise<string | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      const out = await s3().send(new GetObjectCommand({ Bucket: config().dataBucket, Key: key }));
      return out.Body ? await out.Body.transformToString('utf-8') : null;
    } catch (error) {
      if (isMissing(error)) return null;
      if (!isBrokenStream(error) || attempt >= READ_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
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

/** Deletes a data bucket object; deleting one that is already gone succeeds (S3 semantics). */
export async function deleteDataObject(key: string): Promise<void> {
  await s3().send(new DeleteObjectCommand({ Bucket: config().dataBucket, Key: key }));
}
