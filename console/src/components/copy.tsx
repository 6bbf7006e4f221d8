/** Copy-to-clipboard buttons and shortened long ids (ids, hashes, keys) that carry one. */
import { useState } from 'preact/hooks';

/** `prominent`: a full-size primary button, for the one value a panel exists to hand over (a secret shown once). */
export function CopyButton({ text, label, prominent = false }: { text: string; label: string; prominent?: boolean }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      setTimeout(() => setDone(false), 1500);
    } catch {
      // Clipboard refused (insecure origin, denied permission): the value stays selectable on the page.
      setDone(false);
    }
  };
  return (
    <button type="button" class={prominent ? 'primary' : 'copy'} onClick={copy} aria-label={`Copy ${label}`} title={`Copy ${label}`}>
      {done ? 'Copied' : 'Copy'}
      <span class="visually-hidden" aria-live="polite">
        {done ? `${label} copied` : ''}
      </span>
    </button>
  );
}

/** A long value shown as its start and end, the whole of it on hover and in the copy button. */
export function ShortId({ value, label = 'id', head = 8 }: { value: string; label?: string; head?: number }) {
  const short = value.length > head + 6 ? `${value.slice(0, head)}…${value.slice(-4)}` : value;
  return (
    <span class="short-id">
      <code title={value}>{short}</code>
      <CopyButton text={value} label={`${label} ${value}`} />
    </span>
  );
}
