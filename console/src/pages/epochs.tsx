/** Merkle epochs (docs/API.md §4.7), newest first with cursor paging, each with its RFC 3161 anchor on demand. */
import { useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client.js';
import { useAction } from '../components/action.js';
import { Pager, pageQuery, usePagedResource } from '../components/pager.js';
import { ShortId } from '../components/copy.js';
import { PageTitle } from '../components/page.js';
import { ErrorText, Loaded } from '../components/states.js';
import { Table } from '../components/table.js';
import { Time } from '../components/time.js';
import { windowOf, windowText } from '../components/epoch-window.js';

function AnchorCell({ epoch }: { epoch: Schemas['Epoch'] }) {
  const [anchor, setAnchor] = useState<Schemas['EpochAnchor'] | null | undefined>(undefined);
  const load = useAction(async () => {
    const got = await call(api.GET('/v1/epochs/{epoch_id}', { params: { path: { epoch_id: epoch.epoch_id } } }));
    setAnchor(got.anchor);
  });
  if (anchor === null) return <span class="muted">not anchored</span>;
  if (anchor) {
    return (
      <span>
        <Time ms={anchor.anchored_at} /> by <code>{new URL(anchor.tsa_url).host}</code>
      </span>
    );
  }
  return (
    <>
      <button type="button" onClick={() => void load.run()} disabled={load.busy} aria-label={`Show anchor of the epoch from ${new Date(epoch.start_time).toISOString()}`}>
        Show anchor
      </button>
      <ErrorText error={load.error} />
    </>
  );
}

export function EpochsPage() {
  const {
    paging,
    resource: epochs,
    toFirstPage,
  } = usePagedResource((cursor) => call(api.GET('/v1/epochs', { params: { query: pageQuery(cursor) } })), []);
  return (
    <>
      <PageTitle title="Epochs">
        <button type="button" onClick={toFirstPage}>
          Refresh
        </button>
      </PageTitle>
      <p class="muted">
        Every window {epochs.data && windowOf(epochs.data.epochs) !== undefined ? `of ${windowText(windowOf(epochs.data.epochs)!)} ` : ''}with operations gets one epoch: a Merkle root over their chain hashes,
        optionally time-stamped.
      </p>
      <Loaded resource={epochs} what="epochs" isEmpty={(d) => d.epochs.length === 0} empty="No epoch sealed yet.">
        {(data) => (
          <>
            <Table caption="Epochs, newest first" columns={['Window start', 'Window end', 'Operations', 'Merkle root', 'Anchor']}>
              {data.epochs.map((epoch) => (
                <tr key={epoch.epoch_id}>
                  <td>
                    <Time ms={epoch.start_time} />
                  </td>
                  <td>
                    <Time ms={epoch.end_time} />
                  </td>
                  <td>{epoch.leaf_count}</td>
                  <td>
                    <ShortId value={epoch.root_hash} label="root hash" />
                  </td>
                  <td>
                    <AnchorCell epoch={epoch} />
                  </td>
                </tr>
              ))}
            </Table>
            <Pager paging={paging} next={data.cursor} busy={epochs.loading} labels={['Newer', 'Older']} />
          </>
        )}
      </Loaded>
    </>
  );
}
