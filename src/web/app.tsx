import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiClient, ApiFailure } from './api-client.js';
import { ChatView } from './chat-view.js';
import { KeyForm } from './key-form.js';
import { loadKey, saveKey, tabStorage } from './key-store.js';
import { MemoryView } from './memory-view.js';
import { parseRoute, type Route } from './route.js';
import { RunView } from './run-view.js';
import { RunsView } from './runs-view.js';
import { TasksView } from './tasks-view.js';
import { useChat } from './use-chat.js';

const NAV: readonly {
  readonly view: Route['view'];
  readonly label: string;
  readonly hash: string;
}[] = [
  { view: 'chat', label: 'Chat', hash: '#/chat' },
  { view: 'runs', label: 'Runs', hash: '#/runs' },
  { view: 'tasks', label: 'Tasks', hash: '#/tasks' },
  { view: 'memory', label: 'Memory', hash: '#/memory' },
];

/** The page: a header with the views' links, and the view the address names (or the API key form). */
export function App() {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  const key = useRef<string | undefined>(loadKey(tabStorage()));
  const [needsKey, setNeedsKey] = useState(false);
  const [keyRefused, setKeyRefused] = useState(false);
  const client = useMemo(() => new ApiClient({ key: () => key.current }), []);
  const onUnauthorized = useCallback(() => {
    setKeyRefused(key.current !== undefined);
    setNeedsKey(true);
  }, []);
  const chat = useChat(client, onUnauthorized);
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  // Asks the server whether it needs a key (or takes the one given) before anything else is shown failing.
  const probe = useCallback(() => {
    client.getJson('/api/agents').catch((error: unknown) => {
      if (error instanceof ApiFailure && error.status === 401) onUnauthorized();
    });
  }, [client, onUnauthorized]);
  useEffect(probe, [probe]);
  const shownRoute = useRef(route);
  useEffect(() => {
    // Moving between views puts the focus on the new view's heading (the chat focuses its message box).
    if (shownRoute.current === route) return;
    shownRoute.current = route;
    if (route.view !== 'chat') document.getElementById(`${route.view}-heading`)?.focus();
  }, [route]);
  const useKey = (value: string) => {
    key.current = value;
    saveKey(tabStorage(), value);
    setNeedsKey(false);
    probe();
  };
  const current = route.view === 'run' ? 'runs' : route.view;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <p class="brand">OpenJarvis</p>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.view}>
                <a href={item.hash} aria-current={item.view === current ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {keyRefused && needsKey ? (
          <p class="failure" role="alert">
            The server did not accept that key.
          </p>
        ) : null}
        {needsKey ? (
          <KeyForm onKey={useKey} />
        ) : (
          <View route={route} client={client} chat={chat} onUnauthorized={onUnauthorized} />
        )}
      </main>
    </>
  );
}

function View({
  route,
  client,
  chat,
  onUnauthorized,
}: {
  readonly route: Route;
  readonly client: ApiClient;
  readonly chat: ReturnType<typeof useChat>;
  readonly onUnauthorized: () => void;
}) {
  switch (route.view) {
    case 'runs':
      return <RunsView client={client} onUnauthorized={onUnauthorized} />;
    case 'run':
      return <RunView client={client} id={route.id} onUnauthorized={onUnauthorized} />;
    case 'tasks':
      return <TasksView client={client} onUnauthorized={onUnauthorized} />;
    case 'memory':
      return <MemoryView client={client} onUnauthorized={onUnauthorized} />;
    default:
      return <ChatView chat={chat} />;
  }
}
