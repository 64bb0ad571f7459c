import { useCallback, useRef, useState } from 'preact/hooks';
import { type ApiClient, ApiFailure } from './api-client.js';
import { applyChatEvent, type ChatTurn, endTurn, startTurn } from './chat-state.js';

/** The chat's state and actions, kept by the app so the conversation survives a visit to another view. */
export interface ChatController {
  readonly turns: readonly ChatTurn[];
  readonly busy: boolean;
  readonly sessionId: string | undefined;
  send(input: string): Promise<void>;
  stop(): void;
  reset(): void;
}

/** Runs questions through `POST /api/chat`, folding each event into the last exchange as it arrives. */
export function useChat(client: ApiClient, onUnauthorized: () => void): ChatController {
  const [turns, setTurns] = useState<readonly ChatTurn[]>([]);
  const [busy, setBusy] = useState(false);
  const [sessionId, setSessionId] = useState<string | undefined>(undefined);
  const session = useRef<string | undefined>(undefined);
  const running = useRef<AbortController | undefined>(undefined);
  const updateLast = (change: (turn: ChatTurn) => ChatTurn) =>
    setTurns((all) => {
      const last = all.at(-1);
      return last === undefined ? all : [...all.slice(0, -1), change(last)];
    });

  const send = useCallback(
    async (input: string) => {
      if (running.current !== undefined || input.trim() === '') return;
      const controller = new AbortController();
      running.current = controller;
      setBusy(true);
      setTurns((all) => [...all, startTurn(input)]);
      try {
        const events = client.chat({ input, session: session.current }, controller.signal);
        for await (const event of events) {
          if (event.type === 'run_start' || event.type === 'result') {
            session.current = event.sessionId || session.current;
            setSessionId(session.current);
          } else if (event.type === 'error') {
            // A first question that failed before anything was stored leaves no session to continue.
            session.current = event.sessionId;
            setSessionId(session.current);
          }
          updateLast((turn) => applyChatEvent(turn, event));
        }
        updateLast((turn) => endTurn(turn, false));
      } catch (error) {
        if (error instanceof ApiFailure && error.status === 401) onUnauthorized();
        updateLast((turn) => endTurn(turn, controller.signal.aborted, messageOf(error)));
      } finally {
        running.current = undefined;
        setBusy(false);
      }
    },
    [client, onUnauthorized],
  );

  const stop = useCallback(() => running.current?.abort(), []);
  const reset = useCallback(() => {
    running.current?.abort();
    session.current = undefined;
    setSessionId(undefined);
    setTurns([]);
  }, []);
  return { turns, busy, sessionId, send, stop, reset };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
