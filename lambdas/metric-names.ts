/**
 * The namespace and names of the service's CloudWatch metrics (metrics.ts lists what records
 * each and with which dimensions). Plain data, so the CDK app (lib/alarms.ts, lib/dashboard.ts)
 * reads the same names the functions record without loading Powertools.
 */

/** The metrics' CloudWatch namespace. */
export const METRICS_NAMESPACE = 'AgentLedger';

/** Names of the metrics the code records and the alarms and the dashboard watch. */
export const MetricNames = {
  Requests: 'Requests',
  RequestLatency: 'RequestLatency',
  Submissions: 'Submissions',
  EpochsSealed: 'EpochsSealed',
  OperationsSealed: 'OperationsSealed',
  /** A KMS call refused as throttled after the SDK's retries (adapters/aws/kms-throttles.ts). */
  KmsThrottles: 'KmsThrottles',
  /** Each scheduled webhook delivery attempt, by `outcome`: succeeded, failed, refused (egress policy) (domain/webhooks/scheduled-delivery.ts). */
  WebhookAttempts: 'WebhookAttempts',
  /** The time each scheduled delivery attempt took, by `outcome`. */
  WebhookAttemptLatency: 'WebhookAttemptLatency',
  /** A webhook delivery given up after its last attempt (and dead-lettered); no dimension beyond `service`. */
  WebhookDeliveriesFailed: 'WebhookDeliveriesFailed',
  /** A refused submission kept in its agent's attempts log (domain/ledger/refused-attempts.ts); no dimension beyond `service`. */
  AttemptsKept: 'AttemptsKept',
} as const;
