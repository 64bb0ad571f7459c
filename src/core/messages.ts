import type { JsonObject } from './json.js';

/** Who wrote a message; the values are the OpenAI wire names. */
export const Role = {
  SYSTEM: 'system',
  USER: 'user',
  ASSISTANT: 'assistant',
  TOOL: 'tool',
} as const;

/** One of `system`, `user`, `assistant`, `tool`. */
export type Role = (typeof Role)[keyof typeof Role];

/** A tool call issued by a model; `arguments` is the JSON text the model wrote. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** One message of a conversation. */
export interface Message {
  readonly role: Role;
  readonly content: string;
  /** Optional author name (OpenAI `name`). */
  readonly name?: string;
  /** Calls the assistant asked for in this message. */
  readonly toolCalls?: readonly ToolCall[];
  /** For `tool` messages: the id of the call this message answers. */
  readonly toolCallId?: string;
  readonly metadata?: JsonObject;
}

/** Builds a message of the given role. */
export function createMessage(
  role: Role,
  content: string,
  extra: Partial<Omit<Message, 'role' | 'content'>> = {},
): Message {
  return { role, content, ...extra };
}
