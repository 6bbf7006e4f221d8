/**
 * Metrics (Powertools for AWS Lambda, docs/ARCHITECTURE.md "Logs and metrics"): CloudWatch embedded
 * metric format, written to the function's log at the end of each invocation, so no API
 * call and no extra permission. Namespace `AgentLedger`, dimension `service` plus the ones
 * named below. The local stack and the tests set POWERTOOLS_METRICS_DISABLED (local/env.ts,
 * vitest.config.ts): the metrics are still recorded, just not printed.
 *
 * | metric                   | unit         | dimensions      | from                               |
 * |--------------------------|--------------|-----------------|------------------------------------|
 * | Requests                 | Count        | route, status   | every HTTP request (handler-stack) |
 * | RequestLatency           | Milliseconds | route, status   | every HTTP request                 |
 * | Submissions              | Count        | outcome         | POST /v1/operations: ACCEPTED or the docs/API.md §7 code |
 * | ReceiptSigningLatency    | Milliseconds | (service)       | each receipt signature (runtime/signer.ts) |
 * | EpochsSealed             | Count        | (service)       | each sealer run (workers/seal-epochs.ts) |
 * | OperationsSealed         | Count        | (service)       | each sealer run                    |
 * | WebhookAttempts          | Count        | outcome         | each scheduled delivery attempt: succeeded, failed, refused (egress policy) (domain/webhooks/scheduled-delivery.ts) |
 * | WebhookAttemptLatency    | Milliseconds | outcome         | each scheduled delivery attempt    |
 * | WebhookDeliveriesFailed  | Count        | (service)       | deliveries given up after the last attempt (dead-lettered) |
 * | KmsThrottles             | Count        | (service)       | each KMS call refused as throttled after the SDK's retries (adapters/aws/kms-throttles.ts) |
 * | AttemptsKept             | Count        | (service)       | each refused submission kept in its agent's attempts log (domain/ledger/refused-attempts.ts) |
 *
 * The CDK alarms (lib/alarms.ts) and dashboard (lib/dashboard.ts) watch these metrics by the
 * names of metric-names.ts, with the dimensions listed here: a metric recorded with other
 * dimensions is a different metric to CloudWatch, and its alarm would watch nothing.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from './metric-names.js';

export { MetricUnit };

export { METRICS_NAMESPACE, MetricNames } from './metric-names.js';

export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'agent-ledger',
});

interface MetricValue {
  name: string;
  unit: (typeof MetricUnit)[keyof typeof MetricUnit];
  value: number;
}

/**
 * Values that share dimensions, written at once as one EMF record, so the dimensions of one
 * record never leak onto another recorded in the same invocation.
 */
export function recordMetrics(values: readonly MetricValue[], dimensions: Record<string, string> = {}): void {
  // Synchronous from first add to publish, so concurrent requests of the local server cannot interleave records.
  metrics.addDimensions(dimensions);
  for (const { name, unit, value } of values) metrics.addMetric(name, unit, value);
  metrics.publishStoredMetrics();
}
