import type { ComponentChildren } from 'preact';
import type { Loaded } from './use-api.js';

/** Shows a request's state: a note while loading, the failure as an alert, else `children(value)`. */
export function LoadedView<T>({
  loaded,
  children,
}: {
  readonly loaded: Loaded<T>;
  readonly children: (value: T) => ComponentChildren;
}) {
  if (loaded.state === 'loading')
    return (
      <p class="hint" role="status">
        Loading…
      </p>
    );
  if (loaded.state === 'failed')
    return (
      <p class="failure" role="alert">
        Could not load: {loaded.message}
      </p>
    );
  return <>{children(loaded.value)}</>;
}
