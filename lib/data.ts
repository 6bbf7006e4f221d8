/**
 * Where the ledger's state lives (docs/ARCHITECTURE.md, Shape and Data): the single DynamoDB table,
 * the `data` bucket (payloads, receipts, exports), the `anchors` bucket (epoch leaf lists
 * under Object Lock) and the bucket that receives the other two buckets' access logs.
 *
 * Everything is RETAIN: a ledger that loses its rows or its anchors on `cdk destroy` has lost
 * the evidence it exists to keep.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectLockRetention,
  ObjectOwnership,
  type BucketProps,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { TABLE_DESIGN, type IndexProjection } from '../lambdas/store/table-design.js';

export interface LedgerDataProps {
  /** Object Lock COMPLIANCE retention of every anchors object, in days. */
  readonly epochRetentionDays: number;
  /** Days a replaced or deleted version of a data bucket object is kept (context dataNoncurrentVersionDays). */
  readonly dataNoncurrentVersionDays: number;
}

export class LedgerData extends Construct {
  readonly table: Table;
  readonly dataBucket: Bucket;
  readonly anchorsBucket: Bucket;
  readonly logsBucket: Bucket;

  constructor(scope: Construct, id: string, props: LedgerDataProps) {
    super(scope, id);
    this.table = ledgerTable(this);

    this.logsBucket = new Bucket(this, 'AccessLogs', {
      ...baseBucketProps,
      // S3 delivers access logs as new objects that are never overwritten, so versioning
      // would add nothing; a year of them covers any investigation of recent access.
      versioned: false,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
    });

    this.dataBucket = new Bucket(this, 'Data', {
      ...baseBucketProps,
      serverAccessLogsBucket: this.logsBucket,
      serverAccessLogsPrefix: 'data/',
      lifecycleRules: [
        abortIncompleteUploads,
        // Versioning keeps what an overwrite or a delete replaced, so a mistake can be undone;
        // kept forever, those versions would cost storage without end. Current objects
        // (payloads, receipts, exports) never expire.
        { id: 'expire-noncurrent-versions', noncurrentVersionExpiration: Duration.days(props.dataNoncurrentVersionDays) },
      ],
    });

    // Epoch leaf lists are the evidence a Merkle root was computed over (docs/PROTOCOL.md, Merkle
    // epochs). COMPLIANCE mode means no one, the root user included, can delete or overwrite
    // an object version before its retention ends.
    this.anchorsBucket = new Bucket(this, 'Anchors', {
      ...baseBucketProps,
      objectLockEnabled: true,
      objectLockDefaultRetention: ObjectLockRetention.compliance(Duration.days(props.epochRetentionDays)),
      serverAccessLogsBucket: this.logsBucket,
      serverAccessLogsPrefix: 'anchors/',
      lifecycleRules: [abortIncompleteUploads],
    });
  }
}

/** Settings every bucket shares: private, TLS-only, encrypted, kept on stack deletion. */
const baseBucketProps = {
  blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
  objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  // SSE-S3 rather than SSE-KMS: the hot path (docs/ARCHITECTURE.md, Performance budget) writes two
  // objects per operation, and SSE-KMS would add a KMS request (and a KMS grant on every
  // function role) for each; the objects are signed and hashed, so their integrity does not
  // rest on the encryption key anyway.
  encryption: BucketEncryption.S3_MANAGED,
  versioned: true,
  removalPolicy: RemovalPolicy.RETAIN,
} satisfies BucketProps;

const abortIncompleteUploads = {
  id: 'abort-incomplete-multipart-uploads',
  abortIncompleteMultipartUploadAfter: Duration.days(7),
};

/** The table of TABLE_DESIGN, shared with the local stack so the two cannot drift. */
function ledgerTable(scope: Construct): Table {
  const table = new Table(scope, 'Table', {
    partitionKey: { name: TABLE_DESIGN.partitionKey, type: AttributeType.STRING },
    sortKey: { name: TABLE_DESIGN.sortKey, type: AttributeType.STRING },
    // Traffic follows agents' activity, which is bursty and unknown up front.
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    encryption: TableEncryption.AWS_MANAGED,
    timeToLiveAttribute: TABLE_DESIGN.ttlAttribute,
    // The events outbox (lambdas/workers/forward-events.ts) reads the new images.
    stream: StreamViewType[TABLE_DESIGN.stream],
    removalPolicy: RemovalPolicy.RETAIN,
  });
  for (const index of TABLE_DESIGN.globalIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      ...projection(index.projection),
    });
  }
  return table;
}

/** TABLE_DESIGN's projection of an index (docs/COST.md, Indexes). */
function projection(spec: IndexProjection) {
  return 'attributes' in spec
    ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...spec.attributes] }
    : { projectionType: ProjectionType[spec.type] };
}
