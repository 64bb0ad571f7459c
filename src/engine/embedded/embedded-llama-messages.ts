import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from 'node-llama-cpp';
import type { Message, ToolCall } from '../../core/index.js';

/** A function call whose result may still arrive in a later `tool` message. */
interface PendingCall {
  readonly id: string;
  readonly item: ChatModelFunctionCall;
  answered: boolean;
}

/**
 * Converts our messages to node-llama-cpp chat history: system and user messages map one to one; an
 * assistant message becomes a model response holding its text and its tool calls, and each `tool` message
 * becomes the `result` of the call it answers (by `toolCallId`; without one, the oldest unanswered call). Assistant
 * messages that follow tool results continue the same model response, as node-llama-cpp records it; a tool
 * result that answers no call becomes a user message. Pure: the input is not changed.
 */
export function toChatHistory(messages: readonly Message[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const pending: PendingCall[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        history.push({ type: 'system', text: message.content });
        break;
      case 'user':
        history.push({ type: 'user', text: message.content });
        break;
      case 'assistant':
        appendAssistant(history, pending, message);
        break;
      case 'tool':
        if (!answerCall(pending, message)) history.push(orphanResult(message));
        break;
    }
  }
  return history;
}

function appendAssistant(
  history: ChatHistoryItem[],
  pending: PendingCall[],
  message: Message,
): void {
  const last = history.at(-1);
  const response: ChatModelResponse =
    last?.type === 'model' ? last : { type: 'model', response: [] };
  if (response !== last) history.push(response);
  if (message.content !== '') response.response.push(message.content);
  for (const call of message.toolCalls ?? []) {
    const item = toFunctionCall(call);
    response.response.push(item);
    pending.push({ id: call.id, item, answered: false });
  }
}

function toFunctionCall(call: ToolCall): ChatModelFunctionCall {
  // Until its tool message arrives a call has no result; `null` renders as an empty result.
  return { type: 'functionCall', name: call.name, params: parseJson(call.arguments), result: null };
}

function answerCall(pending: readonly PendingCall[], message: Message): boolean {
  const unanswered = pending.filter((call) => !call.answered);
  const call =
    message.toolCallId === undefined
      ? unanswered[0]
      : unanswered.find((candidate) => candidate.id === message.toolCallId);
  if (call === undefined) return false;
  call.item.result = parseJson(message.content);
  call.answered = true;
  return true;
}

function orphanResult(message: Message): ChatHistoryItem {
  const label = message.name === undefined ? 'a tool' : `tool ${message.name}`;
  return { type: 'user', text: `Result of ${label}:\n${message.content}` };
}

/** Parses JSON objects and arrays so they render as JSON; anything else stays the text it was. */
function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}
