/**
 * Export files in the data bucket (docs/ARCHITECTURE.md, Shape: "S3 holds ... exports"), under
 * `exports/<org>/`. A file is written as an S3 multipart upload: it exists under its key
 * only once the upload is completed, whole, so a reader finds the complete file or nothing
 * (docs/EXPORT.md, "Writing in pieces"). Downloads are presigned GET URLs: S3 serves the
 * bytes, which a Lambda response could not (6 MB limit).
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '../config.js';
import { s3 } from './clients.js';

export const exportObjectKeys = {
  /** The file a user downloads. */
  file: (orgId: string, exportId: string, format: 'json' | 'pdf') => `exports/${orgId}/${exportId}.${format}`,
  /** A PDF export's bundle, written first and then embedded in the PDF. */
  bundle: (orgId: string, exportId: string) => `exports/${orgId}/${exportId}.bundle.json`,
  /** Every object an export of `format` writes (the file, and a PDF's bundle). */
  all: (orgId: string, exportId: string, format: 'json' | 'pdf') =>
    format === 'json' ? [exportObjectKeys.file(orgId, exportId, 'json')] : [exportObjectKeys.file(orgId, exportId, 'pdf'), exportObjectKeys.bundle(orgId, exportId)],
};

const contentTypes = { json: 'application/json', pdf: 'application/pdf' } as const;

/** Starts a multipart upload; the object's metadata names the upload, so a completed one is recognised on a retry. */
export async function startUpload(key: string, format: 'json' | 'pdf'): Promise<string> {
  const out = await s3().send(new CreateMultipartUploadCommand({ Bucket: config().dataBucket, Key: key, ContentType: contentTypes[format] }));
  if (!out.UploadId) throw new Error(`S3 gave no upload id for ${key}`);
  return out.UploadId;
}

/** Uploads part `partNumber` (1-based); a part uploaded again under the same number replaces it. Returns its ETag. */
export async function uploadPart(key: string, uploadId: string, partNumber: number, bytes: Uint8Array): Promise<string> {
  const out = await s3().send(
    new UploadPartCommand({ Bucket: config().dataBucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: bytes, ContentLength: bytes.byteLength }),
  );
  if (!out.ETag) throw new Error(`S3 gave no ETag for part ${partNumber} of ${key}`);
  return out.ETag;
}

export async function completeUpload(key: string, uploadId: string, etags: readonly string[]): Promise<void> {
  await s3().send(
    new CompleteMultipartUploadCommand({
      Bucket: config().dataBucket,
      Key: key,
      UploadId: uploadId,
      MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
    }),
  );
}

/**
 * Abandons an upload (its parts are deleted; nothing was ever visible under the key). Best
 * effort: the bucket's lifecycle rule aborts forgotten uploads after 7 days anyway
 * (lib/data.ts), and s3rver does not implement the call.
 */
export async function abortUpload(key: string, uploadId: string): Promise<void> {
  await s3()
    .send(new AbortMultipartUploadCommand({ Bucket: config().dataBucket, Key: key, UploadId: uploadId }))
    .catch(() => undefined);
}

/** The object's size, or undefined when there is none. */
export async function objectSize(key: string): Promise<number | undefined> {
  try {
    const out = await s3().send(new HeadObjectCommand({ Bucket: config().dataBucket, Key: key }));
    return out.ContentLength;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
    throw error;
  }
}

export async function readExportFile(key: string): Promise<Uint8Array> {
  const out = await s3().send(new GetObjectCommand({ Bucket: config().dataBucket, Key: key }));
  if (!out.Body) throw new Error(`${key} has no body`);
  return out.Body.transformToByteArray();
}

/** A GET URL for `key`, valid `seconds`, that makes browsers save the file as `filename`. */
export function presignedDownload(key: string, filename: string, seconds: number): Promise<string> {
  return getSignedUrl(
    s3(),
    new GetObjectCommand({ Bucket: config().dataBucket, Key: key, ResponseContentDisposition: `attachment; filename=${filename}` }),
    { expiresIn: seconds },
  );
}
