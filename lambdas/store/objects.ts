/**
 * JSON objects in the data bucket (docs/ARCHITECTURE.md, Data: payloads and receipts live in S3). One
 * implementation (S3 in AWS, s3rver locally), so no port: this is the only module that talks
 * S3 for the ledger.
 */
import { DeleteObjectCommand, GetObjectCommand, ListObjectVersionsCommand, NoSuchKey, NotFound, PutObjectCommand } from '@aws-sdk/client-s3';
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

/** A store that keeps no versions and does not list them (s3rver, locally: it answers MethodNotAllowed or NotImplemented). */
function keepsNoVersions(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return status === 405 || status === 501;
}

/** Every version id of exactly `key` (delete markers included), page by page. */
async function versionIdsOf(key: string): Promise<string[]> {
  const ids: string[] = [];
  let marker: { KeyMarker?: string; VersionIdMarker?: string } = {};
  for (;;) {
    const page = await s3().send(new ListObjectVersionsCommand({ Bucket: config().dataBucket, Prefix: key, ...marker }));
    // The prefix also matches longer keys (`<key>.more`): only the key itself counts.
    for (const entry of [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]) if (entry.Key === key && entry.VersionId) ids.push(entry.VersionId);
    if (!page.IsTruncated) return ids;
    marker = { ...(page.NextKeyMarker ? { KeyMarker: page.NextKeyMarker } : {}), ...(page.NextVersionIdMarker ? { VersionIdMarker: page.NextVersionIdMarker } : {}) };
  }
}

/**
 * Destroys the data bucket object under `key` for good: in the versioned bucket (lib/data.ts)
 * a plain delete only adds a delete marker and keeps every earlier version for the
 * noncurrent-version retention, so each version (and marker) is deleted by its id. Destroying
 * a key that has none succeeds. A store without versions gets a plain delete.
 */
export async function destroyObject(key: string): Promise<void> {
  let versions: string[];
  try {
    versions = await versionIdsOf(key);
  } catch (error) {
    if (!keepsNoVersions(error)) throw error;
    await s3().send(new DeleteObjectCommand({ Bucket: config().dataBucket, Key: key }));
    return;
  }
  await Promise.all(versions.map((VersionId) => s3().send(new DeleteObjectCommand({ Bucket: config().dataBucket, Key: key, VersionId }))));
}
