import type { Message, ToolCall } from '../core/index.js';
import { invalidRequest } from './openai-error.js';

/** A validated `POST /v1/chat/completions` request, in our own types. */
export interface ChatRequest {
  readonly model: string;
  /** Every message before the last user message: the agent's context conversation. */
  readonly history: readonly Message[];
  /** The last message's text (it must be a `user` message): the agent's input. */
  readonly input: string;
  readonly stream: boolean;
  /** `stream_options.include_usage`: a last chunk with `usage` and no choices. */
  readonly includeUsage: boolean;
  readonly temperature?: number;
  readonly maxTokens?: number;
}

type Json = Readonly<Record<string, unknown>>;

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/**
 * Checks an OpenAI chat request body and maps it to a `ChatRequest`; anything wrong is a 400
 * `invalid_request_error` naming the field. Request-supplied `tools`/`functions` are refused: the server runs its
 * own configured tools, and a client expecting to run its own would silently get answers that never call them.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw invalidRequest('body', 'The body must be a JSON object');
  const model = body.model;
  if (typeof model !== 'string' || model === '')
    throw invalidRequest('model', "'model' must be a non-empty string (see GET /v1/models)");
  refuseClientTools(body);
  refuseSeveralChoices(body);
  const messages = parseMessages(body.messages);
  const last = messages.at(-1);
  if (last?.role !== 'user') {
    throw invalidRequest(
      `messages[${messages.length - 1}].role`,
      "The last message must have role 'user': it is the question the agent answers",
    );
  }
  return {
    model,
    history: messages.slice(0, -1),
    input: last.content,
    stream: optionalBoolean(body, 'stream') ?? false,
    includeUsage: includeUsageOf(body),
    ...temperatureOf(body),
    ...maxTokensOf(body),
  };
}

function refuseClientTools(body: Json): void {
  for (const field of ['tools', 'functions'] as const) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    throw invalidRequest(
      field,
      `'${field}' is not accepted: this server runs its own tools (chosen with \`jarvis serve --tools\`) and returns only the final answer`,
    );
  }
}

function refuseSeveralChoices(body: Json): void {
  const n = body.n;
  if (n === undefined || n === null || n === 1) return;
  throw invalidRequest('n', "'n' must be 1: the agent gives one answer per request");
}

function parseMessages(value: unknown): Message[] {
  if (!Array.isArray(value) || value.length === 0)
    throw invalidRequest('messages', "'messages' must be a non-empty array of messages");
  return value.map((message, index) => parseMessage(message, `messages[${index}]`));
}

function parseMessage(value: unknown, path: string): Message {
  if (!isObject(value)) throw invalidRequest(path, `${path} must be an object`);
  const role = value.role;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw invalidRequest(
      `${path}.role`,
      `${path}.role must be one of system, developer, user, assistant, tool`,
    );
  }
  const toolCalls = role === 'assistant' ? parseToolCalls(value.tool_calls, path) : undefined;
  const content = parseContent(value.content, `${path}.content`, toolCalls !== undefined);
  const name = typeof value.name === 'string' ? { name: value.name } : {};
  if (role === 'tool') {
    const id = value.tool_call_id;
    if (typeof id !== 'string' || id === '')
      throw invalidRequest(`${path}.tool_call_id`, `${path}.tool_call_id must be a string`);
    return { role: 'tool', content, toolCallId: id, ...name };
  }
  const mapped = role === 'developer' ? 'system' : (role as Message['role']);
  return { role: mapped, content, ...name, ...(toolCalls === undefined ? {} : { toolCalls }) };
}

/** Text, or an array of `{type: "text", text}` parts (joined); `null` only beside tool calls. */
function parseContent(value: unknown, path: string, nullAllowed: boolean): string {
  if (typeof value === 'string') return value;
  if ((value === null || value === undefined) && nullAllowed) return '';
  if (!Array.isArray(value))
    throw invalidRequest(path, `${path} must be a string or an array of text parts`);
  return value
    .map((part, index) => {
      if (isObject(part) && part.type === 'text' && typeof part.text === 'string') return part.text;
      throw invalidRequest(
        `${path}[${index}]`,
        `${path}[${index}] must be a text part ({"type": "text", "text": "..."}); images and audio are not supported`,
      );
    })
    .join('');
}

function parseToolCalls(value: unknown, path: string): readonly ToolCall[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidRequest(`${path}.tool_calls`, 'must be an array');
  return value.map((call, index) => {
    const at = `${path}.tool_calls[${index}]`;
    const fn = isObject(call) ? call.function : undefined;
    if (!isObject(call) || typeof call.id !== 'string' || !isObject(fn))
      throw invalidRequest(at, `${at} must be {"id", "type": "function", "function": {...}}`);
    if (typeof fn.name !== 'string' || typeof fn.arguments !== 'string')
      throw invalidRequest(`${at}.function`, `${at}.function needs string 'name' and 'arguments'`);
    return { id: call.id, name: fn.name, arguments: fn.arguments };
  });
}

function includeUsageOf(body: Json): boolean {
  const options = body.stream_options;
  if (options === undefined || options === null) return false;
  if (!isObject(options))
    throw invalidRequest('stream_options', "'stream_options' must be an object");
  return optionalBoolean(options, 'include_usage', 'stream_options.include_usage') ?? false;
}

function temperatureOf(body: Json): { temperature?: number } {
  const temperature = optionalNumber(body, 'temperature', 0, 2);
  return temperature === undefined ? {} : { temperature };
}

function maxTokensOf(body: Json): { maxTokens?: number } {
  const field = body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  const maxTokens = optionalNumber(body, field, 1, 1_000_000);
  if (maxTokens === undefined) return {};
  if (!Number.isInteger(maxTokens))
    throw invalidRequest(field, `'${field}' must be a whole number`);
  return { maxTokens };
}

function optionalBoolean(body: Json, key: string, param: string = key): boolean | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalidRequest(param, `'${param}' must be true or false`);
  return value;
}

function optionalNumber(body: Json, key: string, min: number, max: number): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw invalidRequest(key, `'${key}' must be a number from ${min} to ${max}`);
  return value;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
