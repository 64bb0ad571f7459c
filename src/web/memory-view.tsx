import { useState } from 'preact/hooks';
import type { ApiClient } from './api-client.js';
import { listData, type MemoryHit, memoryHitOf } from './api-types.js';
import { LoadedView } from './loading.js';
import { useApi } from './use-api.js';

/** Searches the memory and lists what it found, best first, with its source and relevance. */
export function MemoryView({
  client,
  onUnauthorized,
}: {
  readonly client: ApiClient;
  readonly onUnauthorized: () => void;
}) {
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState<string | undefined>(undefined);
  const path =
    query === undefined ? undefined : `/api/memory/search?q=${encodeURIComponent(query)}&top_k=10`;
  const [loaded] = useApi(client, path, readHits, onUnauthorized);
  const submit = (event: Event) => {
    event.preventDefault();
    if (draft.trim() !== '') setQuery(draft.trim());
  };
  return (
    <section aria-labelledby="memory-heading">
      <h2 id="memory-heading" tabIndex={-1}>
        Memory
      </h2>
      <form class="search" aria-label="Memory search" onSubmit={submit}>
        <label for="memory-query">Search memory</label>
        <input
          id="memory-query"
          type="search"
          value={draft}
          maxLength={1000}
          onInput={(event) => setDraft(event.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      {query === undefined ? null : (
        <div aria-live="polite">
          <LoadedView loaded={loaded}>{(hits) => <Hits hits={hits} query={query} />}</LoadedView>
        </div>
      )}
    </section>
  );
}

function readHits(body: unknown): MemoryHit[] {
  return listData(body).map(memoryHitOf);
}

function Hits({ hits, query }: { readonly hits: readonly MemoryHit[]; readonly query: string }) {
  if (hits.length === 0) return <p class="hint">Nothing in memory matches “{query}”.</p>;
  return (
    <ol class="cards">
      {hits.map((hit) => (
        <li key={hit.id}>
          <article class="hit" aria-label={`From ${hit.source}`}>
            <h3>{hit.source || 'unknown source'}</h3>
            <p class="hint">Relevance {Math.round(hit.relevance * 100)}%</p>
            <pre>{hit.content}</pre>
          </article>
        </li>
      ))}
    </ol>
  );
}
