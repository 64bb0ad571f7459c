import { useCallback, useEffect, useState } from 'preact/hooks';
import { type ApiClient, ApiFailure } from './api-client.js';

/** What a view's request is doing: loading, failed (with a message), or done with its value. */
export type Loaded<T> =
  | { readonly state: 'loading' }
  | { readonly state: 'failed'; readonly message: string }
  | { readonly state: 'done'; readonly value: T };

/** Loads `path` (again when `path` changes or `reload` is called) and reads the answer with `read`. */
export function useApi<T>(
  client: ApiClient,
  path: string | undefined,
  read: (body: unknown) => T,
  onUnauthorized: () => void,
): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (path === undefined) return;
    const controller = new AbortController();
    setLoaded({ state: 'loading' });
    client
      .getJson(path, controller.signal)
      .then((body) => setLoaded({ state: 'done', value: read(body) }))
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiFailure && error.status === 401) onUnauthorized();
        setLoaded({
          state: 'failed',
          message: error instanceof Error ? error.message : String(error),
        });
      });
    return () => controller.abort();
  }, [client, path, round, onUnauthorized]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return [loaded, reload];
}
