/**
 * An agent's recent operations, newest first, each saying what happened (operation-summary.tsx),
 * and following new ones while watched (live.tsx). The audit query answers oldest first, so
 * the newest are found by narrowing the window to the last hour, day, week or month until it
 * holds enough of them, then reading that window to its end.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client.js';
import { arrivedText, LiveControl, useLiveOperations } from './live.js';
import { summarize, WhatHappened } from './operation-summary.js';
import { useIntegrationTypes } from './record-source.js';
import { ErrorText, Loaded, useResource } from './states.js';
import { Time } from './time.js';

type Stored = Schemas['StoredOperation'];

const SHOWN = 10;
const HOUR = 3_600_000;
const WINDOWS = [HOUR, 24 * HOUR, 7 * 24 * HOUR, 30 * 24 * HOUR, undefined];
/** Pages read at most within a window before settling for what was read. */
const MOST_PAGES = 20;

async function newest(agent_id: string): Promise<{ operations: Stored[]; asked: number }> {
  const asked = Date.now();
  for (const window of WINDOWS) {
    const start_time = window === undefined ? undefined : asked - window;
    const base = { agent_id, limit: 500, ...(start_time === undefined ? {} : { start_time }) };
    let page = await call(api.POST('/v1/audit/query', { body: base }));
    if (page.total_count < SHOWN && window !== undefined) continue;
    const all = [...page.operations];
    for (let pages = 1; page.cursor && pages < MOST_PAGES; pages++) {
      page = await call(api.POST('/v1/audit/query', { body: { ...base, cursor: page.cursor } }));
      all.push(...page.operations);
    }
    return { operations: all.slice(-SHOWN).reverse(), asked };
  }
  return { operations: [], asked };
}

/** `onArrived` is told of each batch of records that arrived while watched. */
export function RecentOperations({ agent_id, onArrived }: { agent_id: string; onArrived?: () => void }) {
  const initial = useResource(() => newest(agent_id), [agent_id]);
  const [arrived, setArrived] = useState<Stored[]>([]);
  const [live, setLive] = useState(true);
  const integrationTypes = useIntegrationTypes();
  const [announcement, setAnnouncement] = useState('');
  const seen = useMemo(() => new Set<string>(), [agent_id]);
  // Another agent opened in the same page component: what arrived for the previous one goes.
  useEffect(() => setArrived([]), [agent_id]);
  if (initial.data) for (const op of initial.data.operations) seen.add(op.operation_id);
  const newestSeen = initial.data ? Math.max(initial.data.asked - 5_000, ...initial.data.operations.map((op) => op.created_at)) : undefined;
  const { error } = useLiveOperations({
    enabled: live,
    filter: { agent_id },
    since: newestSeen,
    seen,
    onNew: (fresh) => {
      setArrived((before) => [...[...fresh].reverse(), ...before].slice(0, SHOWN));
      setAnnouncement(arrivedText(fresh.length));
      onArrived?.();
    },
  });
  return (
    <section aria-labelledby="recent-operations">
      <h2 id="recent-operations">Recent operations</h2>
      <LiveControl id="recent-live" enabled={live} onToggle={setLive} announcement={announcement} />
      <ErrorText error={error} />
      <Loaded resource={initial} what="recent operations" isEmpty={(d) => d.operations.length === 0 && arrived.length === 0} empty="No operation recorded yet.">
        {(data) => (
          <ol class="recent" aria-label="Recent operations, newest first">
            {[...arrived, ...data.operations].slice(0, SHOWN).map((op) => (
              <li key={op.operation_id} data-operation={op.operation_id}>
                <Time ms={op.created_at} /> · <a href={`/operations/${op.operation_id}`}>seq_no {op.seq_no}</a> · {op.operation_type}
                <WhatHappened summary={summarize(op, integrationTypes.get(op.agent_id))} />
              </li>
            ))}
          </ol>
        )}
      </Loaded>
    </section>
  );
}
