/**
 * The operations list's live part: records matching the query's filters that arrive while the
 * page is open, newest first, above nothing else changing (the query's own pages stay as they
 * were fixed, docs/API.md §4.6). Records already listed on the page are not repeated.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Schemas } from '../api/client.js';
import { arrivedText, LiveControl, type LiveFilter, useLiveOperations } from './live.js';
import { OPERATION_COLUMNS, OperationCells } from './operation-summary.js';
import { ErrorText } from './states.js';
import { Table } from './table.js';

type Stored = Schemas['StoredOperation'];

/** How far before opening the page to look, so a record accepted while it loaded is not missed. */
const OVERLAP_MS = 5_000;
const KEPT = 200;

export function ArrivedWhileWatching({ filter, listed }: { filter: LiveFilter; listed: Stored[] | undefined }) {
  const key = `${filter.agent_id ?? ''}|${filter.operation_type ?? ''}`;
  const [live, setLive] = useState(true);
  const [arrived, setArrived] = useState<Stored[]>([]);
  const [announcement, setAnnouncement] = useState('');
  const since = useMemo(() => Date.now() - OVERLAP_MS, [key]);
  const seen = useMemo(() => new Set<string>(), [key]);
  useEffect(() => setArrived([]), [key]);
  for (const op of listed ?? []) seen.add(op.operation_id);
  const { error } = useLiveOperations({
    enabled: live && listed !== undefined,
    filter,
    since,
    seen,
    onNew: (fresh) => {
      setArrived((before) => [...[...fresh].reverse(), ...before].slice(0, KEPT));
      setAnnouncement(arrivedText(fresh.length));
    },
  });
  return (
    <section aria-labelledby="arrived">
      <h3 id="arrived">Arrived while you watch</h3>
      <LiveControl id="operations-live" enabled={live} onToggle={setLive} announcement={announcement} />
      <ErrorText error={error} />
      {arrived.length === 0 ? (
        <p class="muted">{live ? 'Nothing new yet; new records matching the filters appear here.' : 'Live is off.'}</p>
      ) : (
        <Table caption="Operations that arrived while the page was open, newest first" columns={OPERATION_COLUMNS}>
          {arrived.map((op) => (
            <tr key={op.operation_id} data-arrived={op.operation_id}>
              <OperationCells op={op} />
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
