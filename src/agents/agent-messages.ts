import { type AgentContext, type Message, splitReasoning } from '../core/index.js';

/** Returned when a run ends on its turn limit without any answer text. */
export const MAX_TURNS_MESSAGE = 'Maximum turns reached without a final answer.';

/** The messages of a run: the optional system prompt, then the context conversation, then the user input. */
export function buildAgentMessages(
  input: string,
  context?: AgentContext,
  systemPrompt?: string,
): Message[] {
  const messages: Message[] = [];
  if (systemPrompt) messages.push({ role: 'system', content: systemPrompt });
  if (context !== undefined) messages.push(...context.conversation.messages);
  messages.push({ role: 'user', content: input });
  return messages;
}

/** Removes `<think>` reasoning from a final answer (closed blocks, and text before a stray `</think>`). */
export function stripThinkTags(text: string): string {
  return splitReasoning(text).content;
}
