/**
 * s3rver, the object store of the local stack (docs/ARCHITECTURE.md, Local stack: "`s3rver` (dev
 * dependency) on loopback; S3 clients use `forcePathStyle` and
 * `requestChecksumCalculation: 'WHEN_REQUIRED'`"). It runs in this process (it is a Koa app),
 * so it needs no watchdog.
 *
 * Behaviour worth knowing:
 * - objects live as files under the directory; with `--memory` that is a fresh temp dir
 *   removed on stop;
 * - s3rver checks the access key id against its own account list (SigV4 signatures are not
 *   verified). The handlers sign with whatever credentials the environment holds, so we make
 *   it accept any key id;
 * - no bucket has a CORS configuration, so browsers cannot read objects cross-origin (CORS
 *   preflights are refused). Nothing of ours needs CORS on S3;
 * - the SDK's default flexible checksums send `aws-chunked` bodies, which s3rver stores
 *   with the chunk framing; clients must use WHEN_REQUIRED (localS3ClientConfig).
 */
import { CreateBucketCommand, HeadBucketCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import AWSAccount from 's3rver/lib/models/account.js';

interface S3LocalOptions {
  /** Where objects are stored (created if missing); a temp dir removed on stop when omitted. */
  directory?: string;
  /** Buckets to create (existing ones are kept). */
  buckets?: readonly string[];
  /** TCP port on 127.0.0.1; a free one when omitted or 0. */
  port?: number;
}

interface S3Local {
  endpoint: string;
  port: number;
  directory: string;
  stop(): Promise<void>;
}

/** S3 client settings for s3rver; the handlers' client (lambdas/runtime/) uses the same. */
export function localS3ClientConfig(endpoint: string): S3ClientConfig {
  return {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // s3rver serves buckets by path, not by virtual host.
    forcePathStyle: true,
    // Without these the SDK streams uploads as aws-chunked with trailing checksums, which
    // s3rver stores verbatim (framing included).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

export function localS3Client(endpoint: string): S3Client {
  return new S3Client(localS3ClientConfig(endpoint));
}

let anyAccessKeyAccepted = false;

/** s3rver knows one access key (S3RVER); answer every other key id with the same account. */
function acceptAnyAccessKey(): void {
  if (anyAccessKeyAccepted) return;
  anyAccessKeyAccepted = true;
  const registry = AWSAccount.registry;
  const get = registry.get.bind(registry);
  registry.get = (accessKeyId: string) => get(accessKeyId) ?? AWSAccount.DUMMY_ACCOUNT;
}

export async function startS3Local(options: S3LocalOptions = {}): Promise<S3Local> {
  acceptAnyAccessKey();
  const temporary = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'ledger-s3-')));
  await mkdir(directory, { recursive: true });
  // s3rver answers unsigned requests (any access key is accepted): its objects (payloads,
  // exports) stay readable to this user only, and it listens on loopback only (below).
  await chmod(directory, 0o700);
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    directory,
    silent: true,
    // Buckets by path only: a Host header must never be mistaken for a bucket name.
    vhostBuckets: false,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name })),
  });
  let address;
  try {
    address = await server.run();
  } catch (error) {
    if (temporary) await rm(directory, { recursive: true, force: true });
    throw new Error(`cannot start s3rver: ${(error as Error).message}`);
  }
  // s3rver's HTTP server keeps idle keep-alive sockets open; close() would wait for them.
  const httpServer = server.httpServer;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      httpServer?.closeAllConnections();
      await server.close().catch(() => {});
      if (temporary) await rm(directory, { recursive: true, force: true });
    })());
  return { endpoint: `http://127.0.0.1:${address.port}`, port: address.port, directory, stop };
}

/** Creates the buckets that do not exist yet (tests give each file its own). */
export async function ensureBuckets(client: S3Client, names: readonly string[]): Promise<void> {
  await Promise.all(
    names.map(async (Bucket) => {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch {
        await client.send(new CreateBucketCommand({ Bucket }));
      }
    }),
  );
}
