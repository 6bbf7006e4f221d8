/**
 * A confirmation dialog for actions that change state for good or for everyone (freeze,
 * revoke, remove): the native <dialog> (focus kept inside, Esc cancels), a reason when the
 * API asks for one (docs/API.md §4.3), and the API's error shown next to the button that caused it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorText } from './states.js';

export function ConfirmButton({
  label,
  name,
  title,
  children,
  confirmLabel,
  askReason = false,
  danger = false,
  onConfirm,
}: {
  label: string;
  /** The button's accessible name, when its short label is one of many alike (a "Revoke" in every row of a table). */
  name?: string;
  title: string;
  children?: ComponentChildren;
  confirmLabel: string;
  askReason?: boolean;
  danger?: boolean;
  onConfirm: (reason: string) => Promise<unknown>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const [reason, setReason] = useState('');

  useEffect(() => {
    if (open) dialog.current?.showModal();
    else dialog.current?.close();
  }, [open]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm(reason.trim());
      setOpen(false);
      setReason('');
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const titleId = `confirm-${(name ?? label).replace(/\W+/g, '-').toLowerCase()}`;

  return (
    <>
      <button type="button" class={danger ? 'danger' : undefined} aria-label={name} onClick={() => setOpen(true)}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} onClose={() => setOpen(false)}>
        {open && (
          <form onSubmit={submit}>
            <h2 id={titleId}>{title}</h2>
            {children}
            {askReason && (
              <label>
                Reason
                <textarea required value={reason} onInput={(e) => setReason(e.currentTarget.value)} rows={3} maxLength={1024} />
              </label>
            )}
            <ErrorText error={error} />
            <div class="actions">
              <button type="button" onClick={() => setOpen(false)}>
                Cancel
              </button>
              <button type="submit" class={danger ? 'danger' : 'primary'} disabled={busy}>
                {busy ? 'Working…' : confirmLabel}
              </button>
            </div>
          </form>
        )}
      </dialog>
    </>
  );
}
