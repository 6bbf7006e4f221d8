/** One user action at a time (a form submit, a button): busy while it runs, its error kept for display next to it. */
import { useState } from 'preact/hooks';

export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action(...args);
    } catch (failure) {
      setError(failure);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clear: () => setError(undefined) };
}

/** A form's onSubmit that runs `run` in place of the browser's own submit. */
export function submitTo(run: () => unknown) {
  return (event: Event) => {
    event.preventDefault();
    void run();
  };
}
