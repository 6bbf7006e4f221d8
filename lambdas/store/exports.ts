/**
 * Export items (docs/API.md §2.10) and the export worker's state on them.
 *
 * | item   | pk               | sk                   |
 * |--------|------------------|----------------------|
 * | export | ORG#<org>#EXPORTS | EXPORT#<export_id>  |
 * | active exports counter | ORG#<org>#EXPORTS | ACTIVE |
 *
 * The counter (`active`) is the organization's queued plus running exports: raised in the
 * transaction that stores a new export, on the condition that it is below the cap, and
 * lowered in the transaction that ends one (done or failed). So the cap holds under any
 * number of concurrent requests, and one organization cannot fill the exports queue.
 *
 * export_id is a UUIDv7, so the sort key is creation order: the list is one Query, newest
 * first, and a read by id is a strongly consistent point read in the caller's organization.
 *
 * The worker (domain/exports/run-export.ts) keeps its place on the item: `job` (JSON: the
 * bundle writer's resume state, the multipart upload and its part ETags) and a lease
 * (`lease_id`, `lease_until`) that lets one run at a time write. Every write of a run is
 * conditioned on still holding its lease, so a run that lost it (it outlived the lease) can
 * change nothing.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import {
  CONDITION_FAILED,
  TRANSACTION_CONFLICT,
  getItem,
  queryPage,
  strip,
  table,
  transact,
  updateExpression,
  writeIfCondition,
  type AttributeChanges,
  type TransactItem,
} from './dynamo.js';

type ExportStatus = 'queued' | 'running' | 'done' | 'failed';

/** The stored export: the docs/API.md §2.10 fields, progress, and the worker's bookkeeping. */
export interface ExportItem {
  export_id: string;
  org_id: string;
  status: ExportStatus;
  /** JSON: start_time, end_time, agent_id|null, operation_type|null, format, include_payloads. */
  query_params: string;
  store_export_key: string | null;
  created_at: number;
  completed_at: number | null;
  /** The user who asked for it. */
  created_by: string;
  operations_done: number;
  operations_total: number | null;
  /** Why it failed (status failed). */
  error?: string;
  /** The worker's state between runs (JSON), absent once done or failed. */
  job?: string;
  lease_id?: string;
  lease_until?: number;
  /** Runs that ended in an error (the worker gives up after a few). */
  failed_runs?: number;
  /** A done export whose file held a payload erased since: the file is destroyed, the download refused. */
  withdrawn?: ExportWithdrawal;
  /**
   * Set (Unix ms) by an erasure while the export runs: what it wrote may hold the erased
   * payload, so it may not finish but starts over (domain/exports/run-export.ts).
   */
  restart_for_erasure?: number;
}

/** Why a done export was withdrawn: the erasure of a payload it held (docs/API.md §2.10). */
interface ExportWithdrawal {
  /** Unix ms */
  at: number;
  /** the user who erased the payload */
  by: string;
  /** the operation whose payload was erased */
  operation_id: string;
  /** the erasure's reason */
  reason: string;
}

const exportKeys = {
  partition: (orgId: string) => `ORG#${orgId}#EXPORTS`,
  export: (orgId: string, exportId: string) => ({ pk: `ORG#${orgId}#EXPORTS`, sk: `EXPORT#${exportId}` }),
};

const activeKey = (orgId: string) => ({ pk: exportKeys.partition(orgId), sk: 'ACTIVE' });

/** The counter's change when an export ends: one fewer active (never below zero). */
function leaveActive(orgId: string): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: activeKey(orgId),
      UpdateExpression: 'ADD active :minus',
      ConditionExpression: 'active > :zero',
      ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
    },
  };
}

/** Attempts at a transaction that lost to a concurrent one on the same counter. */
const CONFLICT_ATTEMPTS = 8;

/**
 * Stores a new export together with its admin event and one more active export on the
 * organization's counter (one transaction: all or nothing). Returns false, storing nothing,
 * when the organization already has `maxActive` exports queued or running.
 */
export async function putNewExport(item: ExportItem, event: TransactItem, maxActive: number): Promise<boolean> {
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table(),
        Key: activeKey(item.org_id),
        UpdateExpression: 'SET #type = :type ADD active :one',
        ConditionExpression: 'attribute_not_exists(active) OR active < :max',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':one': 1, ':max': maxActive, ':type': 'export_counter' },
      },
    },
    {
      Put: {
        TableName: table(),
        Item: { ...exportKeys.export(item.org_id, item.export_id), type: 'export', ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    event,
  ];
  for (let attempt = 1; ; attempt++) {
    const result = await transact(items);
    if (result.committed) return true;
    if (result.reasons[0]?.code === CONDITION_FAILED) return false;
    const conflicted = result.reasons.some((reason) => reason.code === TRANSACTION_CONFLICT);
    if (!conflicted || attempt >= CONFLICT_ATTEMPTS) {
      throw new Error(`export ${item.export_id} could not be stored: ${result.reasons.map((r) => r.code).join(', ')}`);
    }
    // Concurrent creations of one organization contend for its counter: back off and retry.
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt * Math.random()));
  }
}

export async function readExport(orgId: string, exportId: string): Promise<ExportItem | undefined> {
  return getItem<ExportItem>(exportKeys.export(orgId, exportId));
}

/** A page of the organization's exports, newest first, older than `beforeId` when given. */
export async function exportsNewestFirst(orgId: string, limit: number, beforeId?: string): Promise<{ items: ExportItem[]; more: boolean }> {
  const page = await queryPage({
    KeyConditionExpression: beforeId === undefined ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk AND sk BETWEEN :prefix AND :before',
    ExpressionAttributeValues: {
      ':pk': exportKeys.partition(orgId),
      ':prefix': 'EXPORT#',
      ...(beforeId === undefined ? {} : { ':before': `EXPORT#${beforeId}` }),
    },
    ScanIndexForward: false,
    ConsistentRead: true,
    // One more than asked, to know whether a next page exists; one more again when the
    // bound itself (inclusive in BETWEEN) comes back first.
    Limit: limit + (beforeId === undefined ? 1 : 2),
  });
  const items = page.map((raw) => strip<ExportItem>(raw)).filter((item) => item.export_id !== beforeId);
  return { items: items.slice(0, limit), more: items.length > limit };
}

type Update = AttributeChanges & { condition: string; values?: Record<string, unknown> };

function updateInput(orgId: string, exportId: string, update: Update) {
  const { expression, names, values: changed } = updateExpression(update);
  const values = { ...update.values, ...changed };
  return {
    TableName: table(),
    Key: exportKeys.export(orgId, exportId),
    UpdateExpression: expression,
    ConditionExpression: `attribute_exists(pk) AND (${update.condition})`,
    ExpressionAttributeNames: { ...names, ...conditionNames(update.condition) },
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}

async function updateExport(orgId: string, exportId: string, update: Update): Promise<boolean> {
  return writeIfCondition(() => dynamo().send(new UpdateCommand(updateInput(orgId, exportId, update))));
}

/**
 * The update that ends an export (done or failed), with one fewer active export on the
 * organization's counter in the same transaction. False when the condition does not hold
 * (the run lost its lease, the export already ended): then the counter is untouched.
 */
async function endExport(orgId: string, exportId: string, update: Update): Promise<boolean> {
  const items: TransactItem[] = [{ Update: updateInput(orgId, exportId, update) }, leaveActive(orgId)];
  for (let attempt = 1; ; attempt++) {
    const result = await transact(items);
    if (result.committed) return true;
    if (result.reasons[0]?.code === CONDITION_FAILED) return false;
    if (result.reasons[1]?.code === CONDITION_FAILED) {
      // A counter already at zero (exports stored before it existed): end the export alone.
      return updateExport(orgId, exportId, update);
    }
    if (attempt >= CONFLICT_ATTEMPTS) throw new Error(`export ${exportId} could not be ended: ${result.reasons.map((r) => r.code).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt * Math.random()));
  }
}

/** The attribute names a condition refers to (DynamoDB refuses names an expression does not use). */
function conditionNames(condition: string): Record<string, string> {
  return Object.fromEntries(['status', 'lease_id', 'lease_until'].filter((name) => condition.includes(`#${name}`)).map((name) => [`#${name}`, name]));
}

const HOLDS_LEASE = '#lease_id = :run';

/**
 * Takes the export for one run until `until`: only while it is queued or running and no other
 * run holds an unexpired lease. Marks it running. False when another run has it or it is over.
 */
export function claimExportRun(orgId: string, exportId: string, runId: string, now: number, until: number): Promise<boolean> {
  return updateExport(orgId, exportId, {
    set: { lease_id: runId, lease_until: until, status: 'running' },
    condition: '#status IN (:queued, :running) AND (attribute_not_exists(#lease_until) OR #lease_until < :now)',
    values: { ':queued': 'queued', ':running': 'running', ':now': now },
  });
}

/** Saves the worker's state and progress, and extends the lease; false when the run lost its lease. */
export function saveExportRun(
  orgId: string,
  exportId: string,
  runId: string,
  state: { job: string; operationsDone: number; operationsTotal?: number | null; leaseUntil: number },
): Promise<boolean> {
  return updateExport(orgId, exportId, {
    set: {
      job: state.job,
      operations_done: state.operationsDone,
      lease_until: state.leaseUntil,
      ...(state.operationsTotal === undefined ? {} : { operations_total: state.operationsTotal }),
    },
    condition: HOLDS_LEASE,
    values: { ':run': runId },
  });
}

/** Ends a run that will be continued by another (the lease is given back). */
export function releaseExportRun(orgId: string, exportId: string, runId: string): Promise<boolean> {
  return updateExport(orgId, exportId, { remove: ['lease_id', 'lease_until'], condition: HOLDS_LEASE, values: { ':run': runId } });
}

/** Counts a run that ended in an error; returns false when the run no longer held the lease. */
export function recordFailedRun(orgId: string, exportId: string, runId: string): Promise<boolean> {
  return updateExport(orgId, exportId, { add: { failed_runs: 1 }, remove: ['lease_id', 'lease_until'], condition: HOLDS_LEASE, values: { ':run': runId } });
}

/** done: the file is complete under `key`. False too when an erasure asked the export to start over. */
export function finishExport(orgId: string, exportId: string, runId: string, done: { key: string; at: number; operations: number }): Promise<boolean> {
  return endExport(orgId, exportId, {
    set: { status: 'done', store_export_key: done.key, completed_at: done.at, operations_done: done.operations, operations_total: done.operations },
    remove: ['job', 'lease_id', 'lease_until'],
    condition: `${HOLDS_LEASE} AND attribute_not_exists(restart_for_erasure)`,
    values: { ':run': runId },
  });
}

/** Starts the export over from nothing, the lease given back (the caller re-queues it); false when the run lost its lease. */
export function restartExportRun(orgId: string, exportId: string, runId: string): Promise<boolean> {
  return updateExport(orgId, exportId, {
    set: { operations_done: 0 },
    remove: ['job', 'lease_id', 'lease_until', 'restart_for_erasure'],
    condition: HOLDS_LEASE,
    values: { ':run': runId },
  });
}

/** Asks a running export to start over (an erasure reached it); false when it is no longer running. */
export function flagExportRestart(orgId: string, exportId: string, at: number): Promise<boolean> {
  return updateExport(orgId, exportId, { set: { restart_for_erasure: at }, condition: '#status = :running', values: { ':running': 'running' } });
}

/** Marks a done export withdrawn; false when it is not done, or was withdrawn already (the first mark stays). */
export function markExportWithdrawn(orgId: string, exportId: string, withdrawal: ExportWithdrawal): Promise<boolean> {
  return updateExport(orgId, exportId, {
    set: { withdrawn: withdrawal },
    condition: '#status = :done AND attribute_not_exists(withdrawn)',
    values: { ':done': 'done' },
  });
}

/** failed, with the reason; `runId` null when the export is given up on from outside a run (no lease needed then). */
export function failExport(orgId: string, exportId: string, runId: string | null, failure: { reason: string; at: number }): Promise<boolean> {
  return endExport(orgId, exportId, {
    set: { status: 'failed', error: failure.reason, completed_at: failure.at },
    remove: ['job', 'lease_id', 'lease_until'],
    condition: runId === null ? '#status IN (:queued, :running)' : HOLDS_LEASE,
    values: runId === null ? { ':queued': 'queued', ':running': 'running' } : { ':run': runId },
  });
}
