/**
 * An erasure reaching the exports (docs/API.md §4.5 erase-payload, §2.10 `withdrawn`): every
 * export of the organization whose query covers the operation with payloads included may hold
 * the payload, and is dealt with by its state:
 *
 * - queued: nothing yet. It starts after the erasure committed (the export list is read after
 *   the mark, strongly consistent), so it reads the mark and writes `payload_erased`.
 * - running: it may have written the payload already. It is flagged, and instead of finishing
 *   it destroys what it wrote and starts over (run-export.ts); the flag and its finish are
 *   both conditional writes on the export item, so one of the two always sees the other.
 * - done: withdrawn (the mark first, so no download starts after it), then its files are
 *   destroyed, every version (store/objects.ts destroyObject).
 * - failed: a PDF export that failed while drawing leaves its completed bundle: destroyed.
 *
 * Rewriting a done export in place would change what an auditor already holds under the same
 * id; a withdrawn one says why, and a new export of the same query marks the payload erased.
 */
import { exportObjectKeys } from '../../store/export-objects.js';
import { exportsNewestFirst, flagExportRestart, markExportWithdrawn, readExport, type ExportItem } from '../../store/exports.js';
import type { OperationItem, PayloadErasure } from '../../store/ledger-items.js';
import { destroyObject } from '../../store/objects.js';
import { queryParamsOf } from './export-view.js';

/** Exports read per page of the organization's list. */
const PAGE = 100;

/** Whether the export's query selects the operation with its payload (docs/API.md §4.8). */
function mayHold(item: ExportItem, row: OperationItem): boolean {
  const q = queryParamsOf(item);
  return (
    q.include_payloads &&
    q.start_time <= row.created_at &&
    row.created_at < q.end_time &&
    (q.agent_id === null || q.agent_id === row.agent_id) &&
    (q.operation_type === null || q.operation_type === row.operation_type)
  );
}

async function destroyFiles(item: ExportItem): Promise<void> {
  await Promise.all(exportObjectKeys.all(item.org_id, item.export_id, queryParamsOf(item).format).map(destroyObject));
}

async function reach(item: ExportItem, row: OperationItem, mark: PayloadErasure, now: number): Promise<void> {
  if (item.status === 'queued') return;
  if (item.status === 'running') {
    if (await flagExportRestart(item.org_id, item.export_id, now)) return;
    // It ended meanwhile: deal with it as it is now.
    const current = await readExport(item.org_id, item.export_id);
    if (current === undefined || current.status === 'running' || current.status === 'queued') return;
    return reach(current, row, mark, now);
  }
  if (item.status === 'done') {
    // False when withdrawn already (an erasure called again, or another payload's): the files go all the same.
    await markExportWithdrawn(item.org_id, item.export_id, { at: now, by: mark.by, operation_id: row.operation_id, reason: mark.reason });
  }
  await destroyFiles(item);
}

/**
 * Withdraws, restarts or cleans up every export of the organization that may hold `row`'s
 * payload, erased with `mark`. Safe to repeat (a second erasure call finishes a first that failed).
 */
export async function reachExports(row: OperationItem, mark: PayloadErasure, now: number): Promise<void> {
  let before: string | undefined;
  for (;;) {
    const { items, more } = await exportsNewestFirst(row.org_id, PAGE, before);
    await Promise.all(items.filter((item) => mayHold(item, row)).map((item) => reach(item, row, mark, now)));
    if (!more || items.length === 0) return;
    before = items.at(-1)!.export_id;
  }
}
