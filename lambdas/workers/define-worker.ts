/**
 * `defineWorker`: the Lambda handler of a background worker (worker-table.ts), the twin of
 * `defineHandler` (http/define-handler.ts) for the functions no HTTP request starts. Every
 * invocation logs with the Lambda context (cold_start, function_name, ...), its request id and
 * the worker's id, and with nothing a previous invocation of the warm function appended
 * (docs/ARCHITECTURE.md, "Logs and metrics").
 */
import type { Context } from 'aws-lambda';
import { logger } from '../logger.js';

type WorkerHandler<E, R> = (event: E, context: Context) => Promise<R>;

/**
 * Wraps `fn` as the Lambda handler of the worker `id` (its worker-table.ts id).
 *
 * @example
 * export const handler = defineWorker('SealEpochs', async (event: ScheduledEvent, context) => runSealer(...));
 */
export function defineWorker<E, R>(id: string, fn: WorkerHandler<E, R>): WorkerHandler<E, R> {
  return (event, context) => {
    logger.resetKeys();
    logger.addContext(context);
    logger.appendKeys({ request_id: context.awsRequestId, worker: id });
    return fn(event, context);
  };
}
