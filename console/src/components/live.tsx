/**
 * Following new operations while someone watches: polls POST /v1/audit/query (docs/API.md
 * §4.6) from the newest created_at seen (start_time is inclusive, so records are deduplicated by
 * operation_id), backs off while nothing arrives or the service fails, and pauses while the tab
 * is hidden. The toggle and the announcement of new records are shared by every page that
 * follows.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client.js';

type Stored = Schemas['StoredOperation'];

/** First delay, and the longest the backoff waits between two polls. */
const FIRST_MS = 2_000;
const LONGEST_MS = 30_000;
/** Records fetched per poll; more arrive on the next one (the newest created_at moves on). */
const PAGE = 100;

export interface LiveFilter {
  agent_id?: string;
  operation_type?: string;
}

/**
 * Calls `onNew` with records created at or after `since` that are not in `seen`, oldest first,
 * while `enabled` and the document is visible. `seen` is kept up to date by the hook.
 */
export function useLiveOperations({
  enabled,
  filter,
  since,
  seen,
  onNew,
}: {
  enabled: boolean;
  filter: LiveFilter;
  /** created_at to follow from (the newest seen so far, or when watching began). */
  since: number | undefined;
  seen: Set<string>;
  onNew: (operations: Stored[]) => void;
}): { error: unknown } {
  const [error, setError] = useState<unknown>(undefined);
  const latest = useRef({ onNew, since });
  latest.current.onNew = onNew;
  const key = `${filter.agent_id ?? ''}|${filter.operation_type ?? ''}`;
  useEffect(() => {
    if (!enabled || since === undefined) return;
    let from = since;
    let delay = FIRST_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const schedule = (ms: number) => {
      clearTimeout(timer);
      if (!stopped && !document.hidden) timer = setTimeout(poll, ms);
    };
    async function poll() {
      try {
        const answer = await call(api.POST('/v1/audit/query', { body: { ...filter, start_time: from, limit: PAGE } }));
        if (stopped) return;
        setError(undefined);
        const fresh = answer.operations.filter((op) => !seen.has(op.operation_id));
        for (const op of answer.operations) from = Math.max(from, op.created_at);
        if (fresh.length > 0) {
          for (const op of fresh) seen.add(op.operation_id);
          latest.current.onNew(fresh);
          // A full page means more may be waiting: ask again soon.
          delay = FIRST_MS;
        } else {
          delay = Math.min(delay * 2, LONGEST_MS);
        }
      } catch (failure) {
        if (stopped) return;
        setError(failure);
        delay = Math.min(delay * 2, LONGEST_MS);
      }
      schedule(delay);
    }
    // Hidden: no timer runs. Shown again: poll at once, from the first delay.
    const onVisibility = () => {
      if (document.hidden) clearTimeout(timer);
      else {
        delay = FIRST_MS;
        schedule(0);
      }
    };
    document.addEventListener('visibilitychange', onVisibility);
    schedule(FIRST_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [enabled, since === undefined, key]);
  return { error };
}

/** The "Live" switch and the polite announcement of what arrived. */
export function LiveControl({ enabled, onToggle, announcement, id }: { enabled: boolean; onToggle: (on: boolean) => void; announcement: string; id: string }) {
  return (
    <div class="live">
      <label class="inline-label" htmlFor={id}>
        <input id={id} type="checkbox" checked={enabled} onChange={(e) => onToggle(e.currentTarget.checked)} />
        Live: follow new records
      </label>
      <span class="muted" role="status" aria-live="polite">
        {announcement}
      </span>
    </div>
  );
}

export function arrivedText(count: number): string {
  return `${count} new operation${count === 1 ? '' : 's'} arrived.`;
}
