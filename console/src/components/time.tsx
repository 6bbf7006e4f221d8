/** A moment in the viewer's time zone, with UTC on hover (and in the machine-readable dateTime). */
const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function Time({ ms }: { ms: number | null | undefined }) {
  if (ms === null || ms === undefined) return <span class="muted">—</span>;
  const iso = new Date(ms).toISOString();
  return (
    <time dateTime={iso} title={`${iso.replace('T', ' ').replace('Z', ' UTC')}`}>
      {local.format(ms)}
    </time>
  );
}

/** docs/API.md §2.8/2.9 carry some times as ISO 8601 strings. */
export function IsoTime({ iso }: { iso: string | null | undefined }) {
  return <Time ms={iso ? Date.parse(iso) : null} />;
}
