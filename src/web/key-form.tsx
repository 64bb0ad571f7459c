import { useState } from 'preact/hooks';

/** Asks for the server's API key (the page keeps it in this tab's session storage only). */
export function KeyForm({ onKey }: { readonly onKey: (key: string) => void }) {
  const [draft, setDraft] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    if (draft.trim() !== '') onKey(draft.trim());
  };
  return (
    <section aria-labelledby="key-heading">
      <h2 id="key-heading" tabIndex={-1}>
        This server needs its key
      </h2>
      <p>
        This server needs its API key. It is kept in this browser tab only, until the tab is closed.
      </p>
      <form class="search" onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={draft}
          onInput={(event) => setDraft(event.currentTarget.value)}
        />
        <button type="submit">Use key</button>
      </form>
    </section>
  );
}
