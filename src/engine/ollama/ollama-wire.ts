import {
  type GenerateOptions,
  isPlainObject,
  type JsonObject,
  type Message,
  splitReasoning,
  type TokenUsage,
} from '../../core/index.js';
import { offeredTools } from '../wire/offered-tools.js';
import { joinReasoning } from '../wire/stream-chunks.js';
import {
  argumentsText,
  asRecord,
  normalizeToolCalls,
  type ParsedCompletion,
  type ToolCallIdFactory,
  tokenCount,
  WireFormatError,
} from '../wire/wire-format.js';

/** How much reasoning a thinking model should do (Ollama `think`): on, off, or a level for models that take one. */
export type OllamaThink = boolean | 'low' | 'medium' | 'high';

/** Per-call settings of an `/api/chat` body that do not come from `GenerateOptions`. */
export interface OllamaChatSettings {
  readonly stream: boolean;
  /** The context window (`options.num_ctx`). */
  readonly contextTokens: number;
  readonly think?: OllamaThink | undefined;
}

/** The JSON body of an Ollama `/api/chat` request. */
export function buildOllamaChatBody(
  messages: readonly Message[],
  options: GenerateOptions,
  settings: OllamaChatSettings,
): Record<string, unknown> {
  const modelOptions: Record<string, number> = { num_ctx: settings.contextTokens };
  if (options.temperature !== undefined) modelOptions.temperature = options.temperature;
  if (options.maxTokens !== undefined) modelOptions.num_predict = options.maxTokens;
  const body: Record<string, unknown> = {
    model: options.model,
    messages: toOllamaMessages(messages),
    stream: settings.stream,
    options: modelOptions,
  };
  const tools = offeredTools(options);
  if (tools.length > 0) body.tools = tools;
  if (settings.think !== undefined) body.think = settings.think;
  return body;
}

/**
 * Converts core messages to Ollama chat messages: assistant tool calls carry their arguments as a JSON object
 * (never a string), and tool results name their tool in `tool_name` (found by call id when the message has no name).
 */
export function toOllamaMessages(messages: readonly Message[]): Record<string, unknown>[] {
  const toolNames = new Map<string, string>();
  return messages.map((message) => {
    const wire: Record<string, unknown> = { role: message.role, content: message.content };
    const calls = message.toolCalls ?? [];
    for (const call of calls) toolNames.set(call.id, call.name);
    if (calls.length > 0) {
      wire.tool_calls = calls.map((call) => ({
        function: { name: call.name, arguments: toolArgumentsObject(call.arguments) },
      }));
    }
    if (message.role === 'tool') {
      const name = message.name || toolNames.get(message.toolCallId ?? '');
      if (name) wire.tool_name = name;
    }
    return wire;
  });
}

/**
 * Tool-call arguments as the JSON object Ollama expects. Text that is not a JSON object (a model's broken
 * arguments, already answered with an error) becomes `{}`, because Ollama rejects anything but an object.
 */
export function toolArgumentsObject(text: string): JsonObject {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? (value as JsonObject) : {};
  } catch {
    return {};
  }
}

/** Reads a non-streamed `/api/chat` answer; throws `WireFormatError` when it is not one or reports an error. */
export function parseOllamaChat(
  body: unknown,
  requestedModel: string,
  makeId: ToolCallIdFactory,
): ParsedCompletion {
  const root = asOllamaObject(body, 'the answer');
  const message = asRecord(root.message);
  if (message === undefined) {
    throw new WireFormatError(
      'engine_protocol_error',
      'expected {"message": {"role": "assistant", "content": …}} in the answer',
    );
  }
  const split = splitReasoning(stringField(message, 'content'));
  const toolCalls = normalizeToolCalls(ollamaToolCalls(message.tool_calls), makeId);
  return {
    content: split.content,
    reasoning: joinReasoning(stringField(message, 'thinking'), split.reasoning),
    toolCalls,
    finishReason: ollamaFinishReason(root, toolCalls.length > 0),
    usage: ollamaUsage(root),
    model: modelOf(root, requestedModel),
  };
}

/** The model names of an `/api/tags` answer. */
export function parseOllamaTags(body: unknown): string[] {
  const models = asRecord(body)?.models;
  if (!Array.isArray(models)) {
    throw new WireFormatError(
      'engine_protocol_error',
      'expected {"models": [{"name": …}]} from /api/tags',
    );
  }
  return models.flatMap((item) => {
    const record = asRecord(item);
    const name = record?.name ?? record?.model;
    return typeof name === 'string' && name !== '' ? [name] : [];
  });
}

/** A JSON object from the server, after checking it reports no error (`{"error": "…"}`). */
export function asOllamaObject(value: unknown, what: string): Record<string, unknown> {
  const record = asRecord(value);
  if (record === undefined) {
    throw new WireFormatError('engine_protocol_error', `${what} is not a JSON object`);
  }
  if (record.error !== undefined && record.error !== null && record.error !== '') {
    const error = asRecord(record.error);
    const text =
      typeof record.error === 'string'
        ? record.error
        : typeof error?.message === 'string'
          ? error.message
          : JSON.stringify(record.error);
    throw new WireFormatError('engine_model_error', `Ollama reported an error: ${text}`);
  }
  return record;
}

/** Tool calls of an Ollama message, arguments (objects, or sometimes strings) as JSON text; ids only if sent. */
export function ollamaToolCalls(
  value: unknown,
): { readonly id: unknown; readonly name: string; readonly arguments: string }[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const call = asRecord(item);
    const fn = asRecord(call?.function);
    if (fn === undefined || typeof fn.name !== 'string' || fn.name === '') return [];
    return [{ id: call?.id, name: fn.name, arguments: argumentsText(fn.arguments) }];
  });
}

/** `done_reason` as the finish reason; `tool_calls` whenever calls were made (Ollama says `stop` then). */
export function ollamaFinishReason(root: Record<string, unknown>, madeCalls: boolean): string {
  if (madeCalls) return 'tool_calls';
  return typeof root.done_reason === 'string' && root.done_reason !== ''
    ? root.done_reason
    : 'stop';
}

/** Usage from `prompt_eval_count` and `eval_count`; missing or malformed counts are 0. */
export function ollamaUsage(root: Record<string, unknown>): TokenUsage {
  const promptTokens = tokenCount(root.prompt_eval_count);
  const completionTokens = tokenCount(root.eval_count);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

/** The model named in a line, else the one requested. */
export function modelOf(root: Record<string, unknown>, fallback: string): string {
  return typeof root.model === 'string' && root.model !== '' ? root.model : fallback;
}

/** A string field of a record, `''` when absent or not a string. */
export function stringField(record: Record<string, unknown>, key: string): string {
  const value = record[key];
  return typeof value === 'string' ? value : '';
}
