/** Cursor paging: the cursors of the pages seen so far, so "previous" needs no backwards cursor from the API. */
import { useState } from 'preact/hooks';

export function useCursors() {
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
