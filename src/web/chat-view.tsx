import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChatTurn } from './chat-state.js';
import { formatCount } from './format.js';
import { ToolCard } from './tool-card.js';
import type { ChatController } from './use-chat.js';

/** The chat: the exchanges so far (tool cards, streamed answers, links to each run), and the question form. */
export function ChatView({ chat }: { readonly chat: ChatController }) {
  const [draft, setDraft] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => input.current?.focus(), []);
  const submit = (event: Event) => {
    event.preventDefault();
    const question = draft.trim();
    if (question === '' || chat.busy) return;
    setDraft('');
    void chat.send(question);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) submit(event);
  };
  return (
    <section aria-labelledby="chat-heading">
      <h2 id="chat-heading" tabIndex={-1}>
        Chat
      </h2>
      {chat.turns.length === 0 ? (
        <p class="hint">
          Ask the agent something. Its tool calls show as cards, and each answer links to its run.
        </p>
      ) : (
        <ol class="turns">
          {chat.turns.map((turn, index) => (
            <TurnView key={index} turn={turn} />
          ))}
        </ol>
      )}
      <form class="ask" onSubmit={submit}>
        <label for="message">Message</label>
        <textarea
          id="message"
          ref={input}
          rows={3}
          value={draft}
          onInput={(event) => setDraft(event.currentTarget.value)}
          onKeyDown={onKeyDown}
          aria-describedby="message-help"
        />
        <p id="message-help" class="hint">
          Enter sends, Shift+Enter starts a new line.
        </p>
        <div class="buttons">
          <button type="submit" disabled={chat.busy}>
            Send
          </button>
          {chat.busy ? (
            <button type="button" onClick={chat.stop}>
              Stop
            </button>
          ) : null}
          <button type="button" onClick={chat.reset} disabled={chat.turns.length === 0}>
            New conversation
          </button>
        </div>
      </form>
    </section>
  );
}

function TurnView({ turn }: { readonly turn: ChatTurn }) {
  const streaming = turn.status === 'streaming';
  return (
    <li class="turn">
      <p class="question">
        <span class="who">You</span> {turn.question}
      </p>
      {turn.tools.map((tool) => (
        <ToolCard key={tool.id} tool={tool} />
      ))}
      <div class="answer" aria-live="polite" aria-busy={streaming}>
        <span class="who">Jarvis</span>
        <p class="answer-text">{turn.answer === '' && streaming ? 'Thinking…' : turn.answer}</p>
      </div>
      <TurnFooter turn={turn} />
    </li>
  );
}

function TurnFooter({ turn }: { readonly turn: ChatTurn }) {
  if (turn.status === 'failed')
    return (
      <p class="failure" role="alert">
        Failed: {turn.error ?? 'the run failed'}
      </p>
    );
  if (turn.status === 'stopped') return <p class="hint">Stopped.</p>;
  if (turn.status !== 'done') return null;
  const usage = turn.usage;
  return (
    <p class="turn-meta">
      {usage === undefined
        ? null
        : `${formatCount(usage.promptTokens)} prompt + ${formatCount(usage.completionTokens)} completion tokens. `}
      {turn.runId === undefined ? (
        'No trace was stored for this run.'
      ) : (
        <a href={`#/runs/${encodeURIComponent(turn.runId)}`}>View run timeline</a>
      )}
    </p>
  );
}
