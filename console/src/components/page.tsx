/** A page's heading (and the document title, so a screen reader and the tab say where you are). */
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

export function PageTitle({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · agent-ledger`;
  }, [title]);
  return (
    <div class="page-title">
      <h1>{title}</h1>
      {children && <div class="actions">{children}</div>}
    </div>
  );
}

/** A status word with its colour and a text label (colour is never the only signal). */
export function Status({ value }: { value: string }) {
  return <span class={`status status-${value}`}>{value}</span>;
}
