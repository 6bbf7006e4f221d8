/** A moment in the viewer's time zone, with UTC on hover (and in the machine-readable dateTime). */
const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const toMinute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/**
 * To the minute, its date and its time each kept whole: a narrow column wraps it between the
 * two ("3 Dec 2026," / "08:30"), never inside the date. In the locale's own order and words;
 * a locale whose whole is not date then time is shown as one text.
 */
function MinuteText({ ms }: { ms: number }) {
  const whole = toMinute.format(ms);
  const [date, time] = [dateOnly.format(ms), timeOnly.format(ms)];
  if (!whole.startsWith(date) || !whole.endsWith(time) || whole.length < date.length + time.length) return <>{whole}</>;
  return (
    <>
      <span class="nobreak">{date}</span>
      {whole.slice(date.length, whole.length - time.length)}
      <span class="nobreak">{time}</span>
    </>
  );
}

/** `minutes`: without the seconds, for a table with several times a row (the seconds stay on hover). */
export function Time({ ms, minutes = false }: { ms: number | null | undefined; minutes?: boolean }) {
  if (ms === null || ms === undefined) return <span class="muted">—</span>;
  const iso = new Date(ms).toISOString();
  return (
    <time dateTime={iso} title={`${iso.replace('T', ' ').replace('Z', ' UTC')}`}>
      {minutes ? <MinuteText ms={ms} /> : local.format(ms)}
    </time>
  );
}

/** docs/API.md §2.8/2.9 carry some times as ISO 8601 strings. */
export function IsoTime({ iso }: { iso: string | null | undefined }) {
  return <Time ms={iso ? Date.parse(iso) : null} />;
}
