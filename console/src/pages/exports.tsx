/**
 * Exports (docs/API.md §4.8; docs/AUDIT.md): create one for a time range with the audit
 * query's filters, follow each queued or running export's `progress` live, and download a done
 * one through GET /v1/exports/{export_id}/download, whose 302 leads the browser to the presigned
 * file (an attachment named export-<id>.json or .pdf).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call, type RequestOf, type ResponseOf, type Schemas } from '../api/client.js';
import { submitTo, useAction } from '../components/action.js';
import { ShortId } from '../components/copy.js';
import { Pager, pageQuery, usePagedResource } from '../components/pager.js';
import { PageTitle, Status } from '../components/page.js';
import { ErrorText, Loaded } from '../components/states.js';
import { Table } from '../components/table.js';
import { Time } from '../components/time.js';

type Export = Schemas['Export'];
type ExportDetail = ResponseOf<'GetExport'>;

/** How often a queued or running export is asked for its progress. */
const POLL_MS = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** `query_params` is the create body as JSON (schemas/exports.ts); an unreadable one shows as nothing. */
function paramsOf(exp: Export): Partial<RequestOf<'CreateExport'>> {
  try {
    return JSON.parse(exp.query_params) as Partial<RequestOf<'CreateExport'>>;
  } catch {
    return {};
  }
}

/** A datetime-local value (the viewer's time zone, to the minute) for `ms`. */
function localInput(ms: number): string {
  const date = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}

function CreateExport({ onCreated }: { onCreated: () => void }) {
  const [form, setForm] = useState(() => {
    const now = Date.now();
    return { from: localInput(now - DAY_MS), to: localInput(now + 60_000), format: 'json' as 'json' | 'pdf', agent_id: '', operation_type: '', include_payloads: true };
  });
  const create = useAction(async () => {
    const body: RequestOf<'CreateExport'> = {
      start_time: new Date(form.from).getTime(),
      end_time: new Date(form.to).getTime(),
      format: form.format,
      include_payloads: form.include_payloads,
      ...(form.agent_id.trim() ? { agent_id: form.agent_id.trim() } : {}),
      ...(form.operation_type.trim() ? { operation_type: form.operation_type.trim() } : {}),
    };
    await call(api.POST('/v1/exports', { body }));
    onCreated();
  });
  const set = (name: 'from' | 'to' | 'agent_id' | 'operation_type') => (event: { currentTarget: HTMLInputElement }) => setForm({ ...form, [name]: event.currentTarget.value });
  return (
    <section aria-labelledby="new-export">
      <h2 id="new-export">New export</h2>
      <p class="muted">
        The operations created in the range, each with its receipt, inclusion proof and epoch anchor, checkable offline with{' '}
        <code>agent-ledger verify</code>. A PDF report carries the same bundle as an attachment.
      </p>
      <form class="filters" onSubmit={submitTo(create.run)}>
        <label>
          From <span class="muted">(your time zone)</span>
          <input type="datetime-local" required value={form.from} onInput={set('from')} />
        </label>
        <label>
          To
          <input type="datetime-local" required value={form.to} onInput={set('to')} />
        </label>
        <label>
          Format
          <select value={form.format} onChange={(e) => setForm({ ...form, format: e.currentTarget.value as 'json' | 'pdf' })}>
            <option value="json">JSON bundle</option>
            <option value="pdf">PDF report</option>
          </select>
        </label>
        <label>
          Agent id <span class="muted">(optional)</span>
          <input value={form.agent_id} onInput={set('agent_id')} />
        </label>
        <label>
          Operation type <span class="muted">(optional)</span>
          <input value={form.operation_type} onInput={set('operation_type')} placeholder="tool.invoke" />
        </label>
        <label class="inline-label">
          <input type="checkbox" checked={form.include_payloads} onChange={(e) => setForm({ ...form, include_payloads: e.currentTarget.checked })} />
          Include payloads
        </label>
        <div class="actions">
          <button type="submit" class="primary" disabled={create.busy}>
            Create export
          </button>
        </div>
      </form>
      <ErrorText error={create.error} />
    </section>
  );
}

/** Asks for a queued or running export every POLL_MS until it is done or failed. */
function useLiveExport(listed: Export): { exp: Export; downloadUrl: string | undefined; error: unknown } {
  const [detail, setDetail] = useState<ExportDetail>({ export: listed });
  const [error, setError] = useState<unknown>(undefined);
  const settled = detail.export.status === 'done' || detail.export.status === 'failed';
  useEffect(() => {
    if (settled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        const next = await call(api.GET('/v1/exports/{export_id}', { params: { path: { export_id: listed.export_id } } }));
        if (stopped) return;
        setDetail(next);
        setError(undefined);
      } catch (failure) {
        if (!stopped) setError(failure);
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    timer = setTimeout(poll, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [settled, listed.export_id]);
  return { exp: detail.export, downloadUrl: detail.download_url, error };
}

function Progress({ exp }: { exp: Export }) {
  const { operations_done: done, operations_total: total } = exp.progress;
  const label = `Progress of export ${exp.export_id}`;
  if (exp.status === 'queued') return <span class="muted">waiting for a worker</span>;
  return (
    <span class="progress">
      {total === null ? <progress aria-label={label} /> : <progress aria-label={label} max={Math.max(total, 1)} value={total === 0 ? 1 : done} />}
      <span>{total === null ? `${done} operations, counting…` : `${done} of ${total} operations`}</span>
    </span>
  );
}

/** A done export withdrawn because a payload it held was erased (docs/API.md §2.10): why, and what to do. */
function Withdrawn({ withdrawn }: { withdrawn: NonNullable<Export['withdrawn']> }) {
  return (
    <span data-withdrawn>
      Withdrawn <Time ms={withdrawn.at} />: the payload of operation <a href={`/operations/${withdrawn.operation_id}`}>{withdrawn.operation_id.slice(0, 8)}</a> was erased ({withdrawn.reason}). Its file is
      deleted; a new export marks the payload erased.
    </span>
  );
}

function ExportRow({ listed }: { listed: Export }) {
  const { exp, downloadUrl, error } = useLiveExport(listed);
  const params = paramsOf(exp);
  const format = params.format ?? 'json';
  return (
    <tr data-export={exp.export_id}>
      <td>
        <Time ms={exp.created_at} />
      </td>
      <td>
        <Time ms={params.start_time} /> – <Time ms={params.end_time} />
        {(params.agent_id || params.operation_type) && (
          <div class="muted">
            {[params.agent_id && `agent ${params.agent_id}`, params.operation_type && `type ${params.operation_type}`].filter(Boolean).join(', ')}
          </div>
        )}
      </td>
      <td>
        {format.toUpperCase()}
        {params.include_payloads === false && <div class="muted">without payloads</div>}
      </td>
      <td>
        <Status value={exp.withdrawn ? 'withdrawn' : exp.status} />
      </td>
      <td>
        {exp.withdrawn ? (
          <Withdrawn withdrawn={exp.withdrawn} />
        ) : exp.status === 'failed' ? (
          <span class="error">{exp.error ?? 'failed'}</span>
        ) : (
          <Progress exp={exp} />
        )}
        <ErrorText error={error} />
      </td>
      <td>
        {exp.status === 'done' && !exp.withdrawn ? (
          <a href={downloadUrl ?? `/v1/exports/${exp.export_id}/download`} download={`export-${exp.export_id}.${format}`}>
            Download {format.toUpperCase()}
            <span class="visually-hidden"> of export {exp.export_id}</span>
          </a>
        ) : (
          <ShortId value={exp.export_id} label="export id" />
        )}
      </td>
    </tr>
  );
}

export function ExportsPage() {
  const {
    paging,
    resource: exports,
    toFirstPage,
  } = usePagedResource((cursor) => call(api.GET('/v1/exports', { params: { query: pageQuery(cursor) } })), []);
  return (
    <>
      <PageTitle title="Exports">
        <button type="button" onClick={toFirstPage}>
          Refresh
        </button>
      </PageTitle>
      <CreateExport onCreated={toFirstPage} />
      <h2>Exports</h2>
      <Loaded resource={exports} what="exports" isEmpty={(d) => d.exports.length === 0} empty="No export yet.">
        {(data) => (
          <>
            <Table caption="Exports, newest first" columns={['Created', 'Range', 'Format', 'Status', 'Progress', 'File']}>
              {data.exports.map((exp) => (
                <ExportRow key={exp.export_id} listed={exp} />
              ))}
            </Table>
            <Pager paging={paging} next={data.cursor} busy={exports.loading} labels={['Newer', 'Older']} />
          </>
        )}
      </Loaded>
    </>
  );
}
