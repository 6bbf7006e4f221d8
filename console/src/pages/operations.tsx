/**
 * Operations: the audit query (POST /v1/audit/query, docs/API.md §4.6) with every filter and
 * cursor paging, newest first (as the agent page lists them; api/newest-first.ts reads that
 * order from the API's) or oldest first as the API answers, chosen by the "Order" control.
 * Oldest first, the first page fixes the listing (later pages neither list nor count newer
 * operations), so Refresh starts a new query from page one to take in the newest data. And,
 * for every role, opening one operation by its id. The filters and the order live in the
 * address, so a view can be linked.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call, type RequestOf } from '../api/client.js';
import { newestFirst } from '../api/newest-first.js';
import { ShortId } from '../components/copy.js';
import { ArrivedWhileWatching } from '../components/arrived-operations.js';
import { OPERATION_COLUMNS, OperationCells } from '../components/operation-summary.js';
import { Pager, usePagedResource } from '../components/pager.js';
import { PageTitle } from '../components/page.js';
import { ErrorText, Loaded } from '../components/states.js';
import { Table } from '../components/table.js';
import { useSession } from '../session.js';

type Order = 'newest' | 'oldest';

interface Filters {
  order: Order;
  agent_id: string;
  operation_type: string;
  /** datetime-local values (the viewer's time zone) */
  from: string;
  to: string;
  limit: string;
}

const FILTER_NAMES: (keyof Filters)[] = ['order', 'agent_id', 'operation_type', 'from', 'to', 'limit'];

function filtersOf(query: Record<string, string>): Filters {
  return {
    order: query.order === 'oldest' ? 'oldest' : 'newest',
    agent_id: query.agent_id ?? '',
    operation_type: query.operation_type ?? '',
    from: query.from ?? '',
    to: query.to ?? '',
    limit: query.limit ?? '50',
  };
}

function auditBody(filters: Filters, cursor: string | undefined): RequestOf<'AuditQuery'> {
  return {
    ...(filters.agent_id ? { agent_id: filters.agent_id } : {}),
    ...(filters.operation_type ? { operation_type: filters.operation_type } : {}),
    ...(filters.from ? { start_time: new Date(filters.from).getTime() } : {}),
    ...(filters.to ? { end_time: new Date(filters.to).getTime() } : {}),
    limit: Number(filters.limit) || 50,
    ...(cursor ? { cursor } : {}),
  };
}

function audit(filters: Filters, cursor: string | undefined) {
  if (filters.order === 'newest') {
    const { limit, cursor: _none, ...range } = auditBody(filters, undefined);
    return newestFirst(range, limit ?? 50, cursor);
  }
  return call(api.POST('/v1/audit/query', { body: auditBody(filters, cursor) }));
}

function OpenById() {
  const { route } = useLocation();
  const [id, setId] = useState('');
  return (
    <form
      class="inline"
      role="search"
      aria-label="Open an operation by id"
      onSubmit={(event) => {
        event.preventDefault();
        if (id.trim()) route(`/operations/${encodeURIComponent(id.trim())}`);
      }}
    >
      <label>
        Operation id
        <input value={id} onInput={(e) => setId(e.currentTarget.value)} placeholder="0190b7c4-…" pattern="[0-9a-fA-F-]{36}" required />
      </label>
      <button type="submit">Open</button>
    </form>
  );
}

function AuditQuery() {
  const { query, route, path } = useLocation();
  const applied = filtersOf(query);
  const [draft, setDraft] = useState<Filters>(applied);
  const key = FILTER_NAMES.map((name) => applied[name]).join('|');
  // The answer carries the page it is and the order it was read in, so the rows shown while the
  // next ones load are named right.
  const order = applied.order;
  const {
    paging,
    resource: result,
    toFirstPage,
  } = usePagedResource(async (cursor, page) => ({ ...(await audit(applied, cursor)), page, order }), [key]);

  const apply = (event: Event) => {
    event.preventDefault();
    // The default order stays out of the address.
    const params = new URLSearchParams(Object.entries(draft).filter(([name, value]) => value !== '' && !(name === 'order' && value === 'newest')));
    paging.reset();
    route(`${path}?${params}`);
  };
  const set = (name: keyof Filters) => (event: { currentTarget: HTMLInputElement | HTMLSelectElement }) => setDraft({ ...draft, [name]: event.currentTarget.value });
  // Records that arrive while the list is watched: above a newest-first list, below an oldest-first one.
  const arrived = !applied.to && (
    <ArrivedWhileWatching
      filter={{ ...(applied.agent_id ? { agent_id: applied.agent_id } : {}), ...(applied.operation_type ? { operation_type: applied.operation_type } : {}) }}
      listed={result.data?.operations}
    />
  );
  const invalidRange = draft.from !== '' && draft.to !== '' && new Date(draft.from) >= new Date(draft.to);

  return (
    <section aria-labelledby="audit">
      <h2 id="audit">Audit query</h2>
      <form class="filters" onSubmit={apply}>
        <label>
          Agent id
          <input name="agent_id" value={draft.agent_id} onInput={set('agent_id')} />
        </label>
        <label>
          Operation type
          <input name="operation_type" value={draft.operation_type} onInput={set('operation_type')} placeholder="tool.invoke" />
        </label>
        <label>
          From <span class="muted">(your time zone)</span>
          <input name="from" type="datetime-local" step="1" value={draft.from} onInput={set('from')} />
        </label>
        <label>
          To
          <input name="to" type="datetime-local" step="1" value={draft.to} onInput={set('to')} aria-describedby={invalidRange ? 'range-error' : undefined} />
        </label>
        <label>
          Order
          <select name="order" value={draft.order} onChange={set('order')}>
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
          </select>
        </label>
        <label>
          Per page
          <input name="limit" type="number" min="1" max="500" required value={draft.limit} onInput={set('limit')} />
        </label>
        {invalidRange && <ErrorText id="range-error" error={new Error('“From” must be before “To”.')} />}
        <div class="actions">
          <button type="submit" class="primary" disabled={invalidRange}>
            Apply filters
          </button>
          <button type="button" onClick={toFirstPage}>
            Refresh
          </button>
        </div>
      </form>
      {applied.order === 'newest' && arrived}
      <Loaded resource={result} what="operations" isEmpty={(d) => d.operations.length === 0} empty="No operation matches these filters.">
        {(data) => (
          <>
            <p role="status">
              {data.total_count} operation{data.total_count === 1 ? '' : 's'} match; page {data.page + 1}.
            </p>
            <Table caption={`Operations matching the filters, ${data.order} first`} columns={[...OPERATION_COLUMNS, 'Operation id']}>
              {data.operations.map((op) => (
                <tr key={op.operation_id}>
                  <OperationCells op={op} />
                  <td>
                    <ShortId value={op.operation_id} label="operation id" />
                  </td>
                </tr>
              ))}
            </Table>
            <Pager paging={paging} next={data.cursor} busy={result.loading} />
          </>
        )}
      </Loaded>
      {applied.order === 'oldest' && arrived}
    </section>
  );
}

export function OperationsPage() {
  const { can } = useSession();
  return (
    <>
      <PageTitle title="Operations" />
      <OpenById />
      {can('POST /v1/audit/query') ? <AuditQuery /> : <p class="muted">Your role opens operations by id; querying them is for owners, security admins and compliance auditors.</p>}
    </>
  );
}
