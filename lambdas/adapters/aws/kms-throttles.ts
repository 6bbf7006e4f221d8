/**
 * KMS throttling as a metric (KmsThrottles, lambdas/metrics.ts). KMS publishes no per-key
 * throttle metric, and asymmetric Sign has a low per-account quota (a few hundred a second):
 * a call the SDK gave up on after its retries is counted here, so the KMS throttling alarm
 * (lib/alarms.ts) sees submissions failing for want of signatures.
 */
import { MetricNames, MetricUnit, recordMetrics } from '../../metrics.js';

/**
 * Whether `error` is KMS refusing a request for its rate: ThrottlingException (HTTP 400), 429
 * from the front end, or any error the SDK marks as throttling.
 */
export function isThrottling(error: unknown): boolean {
  const { name, $retryable, $metadata } = (error ?? {}) as {
    name?: string;
    $retryable?: { throttling?: boolean };
    $metadata?: { httpStatusCode?: number };
  };
  return (
    name === 'ThrottlingException' ||
    name === 'TooManyRequestsException' ||
    $retryable?.throttling === true ||
    $metadata?.httpStatusCode === 429
  );
}

/** `call`'s result; a throttled failure is counted, then rethrown unchanged. */
export async function countingThrottles<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (isThrottling(error)) recordMetrics([{ name: MetricNames.KmsThrottles, unit: MetricUnit.Count, value: 1 }]);
    throw error;
  }
}
