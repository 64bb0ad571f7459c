/** The page's views, picked by the address's fragment (`#/runs/<id>`), so links and the back button work. */
export type Route =
  | { readonly view: 'chat' }
  | { readonly view: 'runs' }
  | { readonly view: 'run'; readonly id: string }
  | { readonly view: 'tasks' }
  | { readonly view: 'memory' };

/** The route of a location hash; anything unknown is the chat. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '').split('/');
  const [first = '', second] = path;
  if (first === 'runs' && second !== undefined && second !== '') {
    const id = safeDecode(second);
    if (/^[A-Za-z0-9_-]{1,100}$/.test(id)) return { view: 'run', id };
  }
  if (first === 'runs') return { view: 'runs' };
  if (first === 'tasks') return { view: 'tasks' };
  if (first === 'memory') return { view: 'memory' };
  return { view: 'chat' };
}

/** The hash that shows a route. */
export function routeHash(route: Route): string {
  return route.view === 'run' ? `#/runs/${encodeURIComponent(route.id)}` : `#/${route.view}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}
