import {
  type GenerateOptions,
  type Message,
  splitReasoning,
  type TokenUsage,
  ZERO_USAGE,
} from '../../core/index.js';
import { joinReasoning } from '../wire/stream-chunks.js';
import {
  argumentsText,
  asRecord,
  normalizeToolCalls,
  type ParsedCompletion,
  type RawToolCall,
  type ToolCallIdFactory,
  tokenCount,
  WireFormatError,
} from '../wire/wire-format.js';

/** Converts core messages to OpenAI Chat Completions messages. */
export function toOpenAIMessages(messages: readonly Message[]): Record<string, unknown>[] {
  return messages.map((message) => {
    const wire: Record<string, unknown> = { role: message.role, content: message.content };
    if (message.name) wire.name = message.name;
    if (message.toolCalls !== undefined && message.toolCalls.length > 0) {
      wire.tool_calls = message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments === '' ? '{}' : call.arguments },
      }));
    }
    if (message.toolCallId) wire.tool_call_id = message.toolCallId;
    return wire;
  });
}

/** How a streamed request is asked for. */
export interface StreamRequestOptions {
  readonly stream: boolean;
  /** Ask for a final usage chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
}

/** The JSON body of a `/v1/chat/completions` request. */
export function buildChatCompletionBody(
  messages: readonly Message[],
  options: GenerateOptions,
  streaming: StreamRequestOptions,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: options.model,
    messages: toOpenAIMessages(messages),
    stream: streaming.stream,
  };
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
  if (options.tools !== undefined && options.tools.length > 0) {
    body.tools = options.tools;
    if (options.toolChoice !== undefined) body.tool_choice = options.toolChoice;
  }
  if (streaming.stream && streaming.includeUsage) body.stream_options = { include_usage: true };
  return body;
}

/** Reads a `chat.completion` body; throws `WireFormatError` when it is not one. */
export function parseChatCompletion(
  body: unknown,
  requestedModel: string,
  makeId: ToolCallIdFactory,
): ParsedCompletion {
  const root = asRecord(body);
  if (root === undefined)
    throw new WireFormatError(
      'engine_protocol_error',
      `expected a JSON object, got ${kindOf(body)}`,
    );
  reportServerError(root);
  const choice = Array.isArray(root.choices) ? asRecord(root.choices[0]) : undefined;
  const message = asRecord(choice?.message);
  if (choice === undefined || message === undefined) {
    throw new WireFormatError('engine_protocol_error', 'expected choices[0].message in the answer');
  }
  const split = splitReasoning(contentText(message.content));
  const fieldReasoning = reasoningField(message);
  const rawCalls = toolCallList(message.tool_calls);
  const toolCalls = rawCalls.length === 0 ? [] : normalizeToolCalls(rawCalls, makeId);
  return {
    content: split.content,
    reasoning: joinReasoning(fieldReasoning, split.reasoning),
    toolCalls,
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : 'stop',
    usage: parseUsage(root.usage),
    model: typeof root.model === 'string' && root.model !== '' ? root.model : requestedModel,
  };
}

/** Throws the error a server reported inside a 200 answer (`{"error": …}`). */
export function reportServerError(root: Record<string, unknown>): void {
  if (root.error === undefined || root.error === null) return;
  const error = asRecord(root.error);
  const message = typeof error?.message === 'string' ? error.message : JSON.stringify(root.error);
  throw new WireFormatError('engine_model_error', `the server reported an error: ${message}`);
}

/** The reasoning field of a message or delta (`reasoning_content` or `reasoning`), `''` when absent. */
export function reasoningField(record: Record<string, unknown>): string {
  const value = record.reasoning_content ?? record.reasoning;
  return typeof value === 'string' ? value : '';
}

/** Message content as text: a string, `null`, or an array of `{type: 'text', text}` parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      const record = asRecord(part);
      return typeof record?.text === 'string' ? record.text : '';
    })
    .join('');
}

function toolCallList(value: unknown): RawToolCall[] {
  const calls: RawToolCall[] = [];
  if (!Array.isArray(value)) return calls;
  // A plain loop (no callback and no one-element array per call): this runs on every answer.
  for (const item of value) {
    const call = asRecord(item);
    const fn = asRecord(call?.function);
    if (call === undefined || fn === undefined || typeof fn.name !== 'string') continue;
    calls.push({ id: call.id, name: fn.name, arguments: argumentsText(fn.arguments) });
  }
  return calls;
}

/** OpenAI usage to core usage: missing or malformed counts become 0, a missing total is the sum. */
export function parseUsage(value: unknown): TokenUsage {
  const usage = asRecord(value);
  if (usage === undefined) return ZERO_USAGE;
  const promptTokens = tokenCount(usage.prompt_tokens);
  const completionTokens = tokenCount(usage.completion_tokens);
  const total = tokenCount(usage.total_tokens);
  return {
    promptTokens,
    completionTokens,
    totalTokens: total > 0 ? total : promptTokens + completionTokens,
  };
}

/** What kind of JSON value this is, in words (`null`, `an array`, `string`, …). */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

/** The model ids of a `/v1/models` answer. */
export function parseModelList(body: unknown): string[] {
  const data = asRecord(body)?.data;
  if (!Array.isArray(data)) {
    throw new WireFormatError(
      'engine_protocol_error',
      'expected {"data": [{"id": …}]} from the model list',
    );
  }
  return data.flatMap((item) => {
    const id = asRecord(item)?.id;
    return typeof id === 'string' ? [id] : [];
  });
}
