/** Cursor paging: the cursors of the pages seen so far, so "previous" needs no backwards cursor from the API. */
import { useState } from 'preact/hooks';
import { useResource } from './states.js';

function useCursors() {
  // cursors[i] opens page i + 1; the first page has none.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const page = cursors.length - 1;
  return {
    page,
    cursor: cursors[page],
    reset: () => setCursors([undefined]),
    previous: () => setCursors(cursors.slice(0, -1)),
    next: (cursor: string | undefined) => setCursors([...cursors, cursor]),
  };
}

/** The `limit` and `cursor` query of a paged list; the first page has no cursor. */
export function pageQuery(cursor: string | undefined, limit = 20): { limit: number; cursor?: string } {
  return cursor ? { limit, cursor } : { limit };
}

/**
 * A list the API pages with `cursor`: the paging, the shown page's answer (loaded again when
 * `deps` change), and `toFirstPage`, which shows the first page again with the newest data.
 */
export function usePagedResource<T>(load: (cursor: string | undefined, page: number) => Promise<T>, deps: readonly unknown[]) {
  const paging = useCursors();
  const resource = useResource(() => load(paging.cursor, paging.page), [...deps, paging.page, paging.cursor]);
  const toFirstPage = () => (paging.page === 0 ? resource.reload() : paging.reset());
  return { paging, resource, toFirstPage };
}

/** `busy` while a page loads: `next` is still the shown page's cursor then, so neither button may act on it. */
export function Pager({
  paging,
  next,
  busy = false,
  labels = ['Previous page', 'Next page'],
}: {
  paging: ReturnType<typeof useCursors>;
  next: string | undefined;
  busy?: boolean;
  labels?: [string, string];
}) {
  return (
    <div class="actions">
      <button type="button" disabled={busy || paging.page === 0} onClick={paging.previous}>
        {labels[0]}
      </button>
      <button type="button" disabled={busy || !next} onClick={() => paging.next(next)}>
        {labels[1]}
      </button>
    </div>
  );
}
