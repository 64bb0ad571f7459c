import type { Message } from '../core/index.js';

/** The result text given to a call whose turn ended before the call had one. */
export const MISSING_RESULT_TEXT = 'No result: the turn ended before this tool call finished.';

/**
 * The messages with every assistant tool call followed by exactly one result: results come right after the
 * message that asked for them, a call without one gets a `tool` message saying so, and a result answering no
 * call of the message before it (or a second result for one call) is dropped. Engines refuse histories that
 * break this, so a turn cut short (Ctrl-C, a crash of a tool) is stored paired and the next turn still works.
 */
export function pairToolCalls(messages: readonly Message[]): Message[] {
  const paired: Message[] = [];
  let open: Map<string, string> | undefined;
  const closeGroup = (): void => {
    for (const [id, name] of open ?? []) {
      paired.push({ role: 'tool', content: MISSING_RESULT_TEXT, toolCallId: id, name });
    }
    open = undefined;
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      const id = message.toolCallId;
      if (open !== undefined && id !== undefined && open.has(id)) {
        open.delete(id);
        paired.push(message);
      }
      continue;
    }
    closeGroup();
    paired.push(message);
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) {
      open = new Map((message.toolCalls ?? []).map((call) => [call.id, call.name]));
    }
  }
  closeGroup();
  return paired;
}

/** Whether every tool call in `messages` has its result right after it and every result answers a call. */
export function isPaired(messages: readonly Message[]): boolean {
  const paired = pairToolCalls(messages);
  return (
    paired.length === messages.length &&
    paired.every((message, index) => message === messages[index])
  );
}
