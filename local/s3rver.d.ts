/** The parts of s3rver 3.x (no published types) the local stack uses. */
declare module 's3rver' {
  import type { Server } from 'node:http';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    httpServer?: Server;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
  export default S3rver;
}

/** s3rver's account registry: which access key ids it accepts. */
declare module 's3rver/lib/models/account.js' {
  interface AWSAccount {
    id: number;
    displayName: string;
    accessKeys: Map<string, string>;
  }
  const AWSAccount: {
    registry: Map<string, AWSAccount>;
    DUMMY_ACCOUNT: AWSAccount;
  };
  export default AWSAccount;
}
