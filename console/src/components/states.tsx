/**
 * Loading, empty and error states every list and page shares, and the hook that feeds them:
 * `useResource(load, deps)` runs `load`, keeps the newest answer only (a slow old request
 * never overwrites a newer one) and offers `reload`.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api/client.js';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => mine === generation.current && setState({ data: undefined, error, loading: false }),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

export function ErrorText({ error, id }: { error: unknown; id?: string }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error" role="alert" id={id}>
      {messageOf(error)}
    </p>
  );
}

/** Whether asking again can help: not for what does not exist, is not allowed or is malformed (a 4xx other than a rate limit). */
function mayRetry(error: unknown): boolean {
  return !(error instanceof ApiError) || error.status === 0 || error.status === 429 || error.status >= 500;
}

/** The three states of anything loaded, then `children(data)` once there is data. */
export function Loaded<T>({
  resource,
  what,
  isEmpty,
  empty,
  children,
}: {
  resource: Resource<T>;
  what: string;
  isEmpty?: (data: T) => boolean;
  empty?: ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  if (resource.error !== undefined) {
    return (
      <div class="state">
        <ErrorText error={resource.error} />
        {mayRetry(resource.error) && (
          <button type="button" onClick={resource.reload}>
            Try again
          </button>
        )}
      </div>
    );
  }
  if (resource.data === undefined) {
    return (
      <p class="state muted" role="status">
        Loading {what}…
      </p>
    );
  }
  if (isEmpty?.(resource.data)) {
    return <p class="state muted">{empty ?? `No ${what} yet.`}</p>;
  }
  return <>{children(resource.data)}</>;
}
