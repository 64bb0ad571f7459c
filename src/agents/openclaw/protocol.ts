/*
 * The OpenClaw protocol, for people writing a runtime that OpenClawAgent can drive.
 *
 * Every message is one JSON object: {"type", "id", "content", "tool_name"?, "tool_args"?, "tool_result"?, "error"?,
 * "metadata"?}. The agent sends `health` (answer `health_ok`), `query` (content = the user input, metadata =
 * {"model", "conversation": [{"role", "content", "tool_calls"?, "tool_call_id"?}]}: the history, with an assistant's
 * tool calls in the OpenAI shape and each result's call id) and `tool_result` (tool_name, tool_result = the tool's text,
 * metadata = {"tool_call_id": <id of your tool_call>, "success": bool, "error_code"?}). To a query or a tool result
 * the runtime answers `tool_call` (tool_name + tool_args object; its own fresh id), `response` (content = the final
 * answer) or `error` (error = what went wrong). A new `query` always starts a new conversation.
 *
 * - HTTP: `GET /health` answers 200 when ready; `POST /api/query` takes one message as the body and answers with one
 *   message as a 2xx JSON body.
 * - Subprocess (`node <script>`): one message per line on stdin, exactly one reply line per request on stdout
 *   (nothing else may be written there; use stderr for logs), lines of at most 8 MiB.
 * - Replies are matched to requests by order (the original protocol does not echo ids); a runtime may add
 *   `metadata.reply_to` = the id of the message it answers, which the subprocess transport then checks.
 * - `src/testing/openclaw-runtime.ts` (`openjarvis/testing`) ships a reference runtime for both transports.
 */
import { isPlainObject, JarvisError, type JsonObject, jsonTypeName } from '../../core/index.js';

/**
 * The message types of the OpenClaw protocol: the agent sends `query`, `tool_result` and `health`; the runtime
 * answers with `response`, `tool_call`, `error` or `health_ok`.
 */
export const OPENCLAW_MESSAGE_TYPES = [
  'query',
  'response',
  'tool_call',
  'tool_result',
  'error',
  'health',
  'health_ok',
] as const;

/** One of the OpenClaw message types. */
export type OpenClawMessageType = (typeof OPENCLAW_MESSAGE_TYPES)[number];

/**
 * One protocol message. On the wire the keys are snake_case (`tool_name`, `tool_args`, `tool_result`); the optional
 * fields are left out when absent and `metadata` when empty.
 */
export interface OpenClawMessage {
  readonly type: OpenClawMessageType;
  readonly id: string;
  readonly content: string;
  readonly toolName?: string;
  /** The arguments of a `tool_call`: always a JSON object. */
  readonly toolArgs?: JsonObject;
  /** The text result of a `tool_result`. */
  readonly toolResult?: string;
  readonly error?: string;
  /** Free-form data; keys stay as written on the wire (`model`, `conversation`, `tool_call_id`, `reply_to`). */
  readonly metadata: JsonObject;
}

/** The fields of a message to build; `id`, `content` and `metadata` have defaults. */
export type OpenClawMessageInit = Partial<Omit<OpenClawMessage, 'type'>> & {
  readonly type: OpenClawMessageType;
};

/** Options of `createOpenClawMessage` and `parseMessage`. */
export interface OpenClawIdOptions {
  /** Makes the id of a message that has none (default `crypto.randomUUID()`). */
  readonly generateId?: () => string;
}

/** Bad protocol input: the text names what was wrong and what is accepted. */
export class OpenClawProtocolError extends JarvisError {
  constructor(message: string, cause?: unknown) {
    super({ code: 'openclaw_protocol_error', message, cause });
  }
}

const TYPE_SET: ReadonlySet<string> = new Set(OPENCLAW_MESSAGE_TYPES);
const ACCEPTED_TYPES = OPENCLAW_MESSAGE_TYPES.join(', ');

/** Builds a message with a fresh id (unless given), empty content and empty metadata by default. */
export function createOpenClawMessage(
  init: OpenClawMessageInit,
  options: OpenClawIdOptions = {},
): OpenClawMessage {
  const generateId = options.generateId ?? (() => crypto.randomUUID());
  return {
    ...init,
    id: init.id ?? generateId(),
    content: init.content ?? '',
    metadata: init.metadata ?? {},
  };
}

/** Serialises a message as one line of JSON (no trailing newline) with the snake_case wire keys. */
export function serializeMessage(message: OpenClawMessage): string {
  const wire: Record<string, unknown> = {
    type: message.type,
    id: message.id,
    content: message.content,
  };
  if (message.toolName !== undefined) wire.tool_name = message.toolName;
  if (message.toolArgs !== undefined) wire.tool_args = message.toolArgs;
  if (message.toolResult !== undefined) wire.tool_result = message.toolResult;
  if (message.error !== undefined) wire.error = message.error;
  if (Object.keys(message.metadata).length > 0) wire.metadata = message.metadata;
  return JSON.stringify(wire);
}

/**
 * Parses and validates one line (or HTTP body) of the protocol; throws `OpenClawProtocolError` for invalid JSON,
 * a non-object, a missing or unknown `type`, or a field of the wrong type. Unknown extra keys are ignored.
 */
export function parseMessage(line: string, options: OpenClawIdOptions = {}): OpenClawMessage {
  const value = parseJson(line);
  if (!isPlainObject(value)) {
    throw new OpenClawProtocolError(
      `Invalid OpenClaw message: expected a JSON object, got ${jsonTypeName(value)} (${preview(line)})`,
    );
  }
  const type = readType(value.type);
  const id = optionalString(value, 'id');
  const message = createOpenClawMessage(
    {
      type,
      content: optionalString(value, 'content') ?? '',
      metadata: optionalObject(value, 'metadata') ?? {},
      ...(id === undefined || id === '' ? {} : { id }),
      ...optionalFields(value),
    },
    options,
  );
  if (type === 'tool_call' && (message.toolName === undefined || message.toolName === '')) {
    throw new OpenClawProtocolError(
      'Invalid OpenClaw message: a "tool_call" needs a non-empty string "tool_name" (and an object "tool_args")',
    );
  }
  return message;
}

/**
 * Checks that a reply answers `request` when the runtime says which message it answers (`metadata.reply_to`);
 * replies without `reply_to` are accepted (the original protocol correlates by order).
 */
export function checkReplyCorrelation(request: OpenClawMessage, reply: OpenClawMessage): void {
  const replyTo = reply.metadata.reply_to;
  if (replyTo === undefined || replyTo === null) return;
  if (replyTo !== request.id) {
    throw new OpenClawProtocolError(
      `OpenClaw reply answers message ${JSON.stringify(replyTo)}, but the message in flight is ${JSON.stringify(request.id)}`,
    );
  }
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new OpenClawProtocolError(
      `Invalid OpenClaw message: not valid JSON (${reason}); expected one JSON object per line, got ${preview(line)}`,
      error,
    );
  }
}

function readType(value: unknown): OpenClawMessageType {
  if (typeof value === 'string' && TYPE_SET.has(value)) return value as OpenClawMessageType;
  const got =
    value === undefined
      ? 'no "type" field'
      : typeof value === 'string'
        ? `type ${JSON.stringify(value)}`
        : `a "type" of JSON type ${jsonTypeName(value)}`;
  throw new OpenClawProtocolError(
    `Invalid OpenClaw message: unknown message type (${got}); accepted types: ${ACCEPTED_TYPES}`,
  );
}

function optionalFields(value: Record<string, unknown>): Partial<OpenClawMessage> {
  const toolName = optionalString(value, 'tool_name');
  const toolArgs = optionalObject(value, 'tool_args');
  const toolResult = optionalString(value, 'tool_result');
  const error = optionalString(value, 'error');
  return {
    ...(toolName === undefined ? {} : { toolName }),
    ...(toolArgs === undefined ? {} : { toolArgs }),
    ...(toolResult === undefined ? {} : { toolResult }),
    ...(error === undefined ? {} : { error }),
  };
}

/** A string field; absent or `null` gives undefined. */
function optionalString(value: Record<string, unknown>, key: string): string | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (typeof field !== 'string') throw wrongType(key, field, 'a string or null');
  return field;
}

/** An object field; absent or `null` gives undefined. */
function optionalObject(value: Record<string, unknown>, key: string): JsonObject | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (!isPlainObject(field)) throw wrongType(key, field, 'a JSON object or null');
  return field as JsonObject;
}

function wrongType(key: string, field: unknown, accepted: string): OpenClawProtocolError {
  return new OpenClawProtocolError(
    `Invalid OpenClaw message: "${key}" must be ${accepted}, got ${jsonTypeName(field)}`,
  );
}

function preview(line: string): string {
  const limit = 120;
  const shown = line.length > limit ? `${line.slice(0, limit)}… (${line.length} characters)` : line;
  return JSON.stringify(shown);
}
