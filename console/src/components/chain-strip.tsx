/**
 * An agent's chain as a strip from seq_no 1 to the head, the sealed part (in an epoch, so in a
 * Merkle root and anchored) told apart from the open tail that the next sealing run takes in.
 * Sealing goes window by window and every window with operations gets an epoch, so the agent's
 * operations created before the newest epoch's end are exactly its sealed ones: the audit
 * query's total_count up to that end_time (docs/API.md §4.6, §4.7).
 */
import { api, call } from '../api/client.js';
import { ErrorText, useResource } from './states.js';

export function ChainStrip({ agent_id, head }: { agent_id: string; head: number }) {
  const sealed = useResource(async () => {
    const newest = (await call(api.GET('/v1/epochs', { params: { query: { limit: 1 } } }))).epochs[0];
    if (!newest || head === 0) return 0;
    const answer = await call(api.POST('/v1/audit/query', { body: { agent_id, end_time: newest.end_time, limit: 1 } }));
    return Math.min(answer.total_count, head);
  }, [agent_id, head]);
  if (head === 0) return null;
  if (sealed.error !== undefined) return <ErrorText error={sealed.error} />;
  if (sealed.data === undefined) return null;
  const count = sealed.data;
  const open = head - count;
  const sealedWidth = (count / head) * 1000;
  const description =
    `seq_no 1 to ${head}: ` +
    (count === 0 ? 'none sealed yet' : `1 to ${count} sealed in epochs`) +
    (open === 0 ? ', no open tail.' : `, ${count + 1} to ${head} open (not yet in an epoch).`);
  return (
    <figure class="chain-strip" data-sealed={count} data-head={head}>
      <svg viewBox="0 0 1000 20" preserveAspectRatio="none" role="img" aria-label={`Chain strip: ${description}`}>
        {count > 0 && <rect class="sealed" x="0" y="0" width={sealedWidth} height="20" />}
        {open > 0 && <rect class="open" x={sealedWidth} y="0" width={1000 - sealedWidth} height="20" />}
      </svg>
      <figcaption>
        <span class="key sealed" aria-hidden="true" /> sealed <span class="key open" aria-hidden="true" /> open tail · {description}
      </figcaption>
    </figure>
  );
}
