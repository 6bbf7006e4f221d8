/**
 * The local stand-in for the EventBridge schedule (docs/ARCHITECTURE.md, Local stack: "timer every
 * $LEDGER_EPOCH_MS"): every interval, each `schedule` worker of the worker table gets a
 * Scheduled Event. Runs never overlap: the next one is timed from the end of the previous,
 * so a slow seal delays the next tick instead of racing it (the sealer must be correct
 * under overlap in AWS anyway, but locally there is no reason to cause it).
 */
import type { ScheduledEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import type { WorkerSpec } from '../lambdas/workers/worker-spec.js';
import { inBackground } from './background-priority.js';
import { loadHandler } from './handler-modules.js';
import { lambdaContext } from './lambda-context.js';

export interface Schedule {
  /** Runs every scheduled worker now (tests), waiting for a run in progress first. */
  runNow(): Promise<void>;
  /** Stops the timer and waits for a run in progress. Idempotent. */
  stop(): Promise<void>;
}

function scheduledEvent(worker: WorkerSpec): ScheduledEvent {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:000000000000:rule/ledger-${worker.id}`],
    detail: {},
  };
}

export function startSchedule(workers: readonly WorkerSpec[], intervalMs: number): Schedule {
  const scheduled = workers.filter((worker) => worker.trigger.kind === 'schedule');
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  async function runAll(): Promise<void> {
    for (const worker of scheduled) {
      try {
        const handler = await loadHandler<ScheduledEvent, unknown>('workers', worker.handler);
        // Sealing's table and object store calls yield to API requests (background-priority.ts).
        await inBackground(() => handler(scheduledEvent(worker), lambdaContext(worker.id, worker.timeoutSeconds)));
      } catch (error) {
        // As in AWS, a failed run is logged and the next tick tries again.
        process.stderr.write(
          `${JSON.stringify({ level: 'ERROR', source: 'local-schedule', worker: worker.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) })}\n`,
        );
      }
    }
  }

  function run(): Promise<void> {
    running = running.then(runAll);
    return running;
  }

  function arm(): void {
    if (stopped || scheduled.length === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void run().then(arm);
    }, intervalMs);
  }

  arm();
  return {
    runNow: () => (stopped ? Promise.resolve() : run()),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
