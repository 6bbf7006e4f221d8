/**
 * The namespace and names of the service's CloudWatch metrics (metrics.ts lists what records
 * each and with which dimensions). Plain data, so the CDK app (lib/alarms.ts, lib/dashboard.ts)
 * reads the same names the functions record without loading Powertools.
 */

/** The metrics' CloudWatch namespace. */
export const METRICS_NAMESPACE = 'AgentLedger';

/** Names of the metrics the alarms and the dashboard watch. */
export const MetricNames = {
  Requests: 'Requests',
  RequestLatency: 'RequestLatency',
  Submissions: 'Submissions',
  EpochsSealed: 'EpochsSealed',
  OperationsSealed: 'OperationsSealed',
  /** A KMS call refused as throttled after the SDK's retries (adapters/aws/kms-throttles.ts). */
  KmsThrottles: 'KmsThrottles',
  /** A webhook delivery attempt that got no 2xx; recorded by the delivery worker with no dimension beyond `service`. */
  WebhookDeliveryFailures: 'WebhookDeliveryFailures',
} as const;
