import type { EngineErrorCode, FinishReason, TokenUsage, ToolCall } from '../../core/index.js';

/** A server answer that does not follow its wire format (or reports an error inside a 200 answer). */
export class WireFormatError extends Error {
  constructor(
    readonly code: Extract<EngineErrorCode, 'engine_protocol_error' | 'engine_model_error'>,
    message: string,
  ) {
    super(message);
    this.name = 'WireFormatError';
  }
}

/** A parsed (non-streamed) chat answer, in any wire format. */
export interface ParsedCompletion {
  readonly content: string;
  readonly reasoning: string;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage;
  readonly model: string;
}

/** Makes the id of the n-th tool call of an answer when the server gave none (or a duplicate). */
export type ToolCallIdFactory = (index: number) => string;

/** Ids of the form `call_<n>_<8 random base-36 characters>`, drawn from `random`. */
export function createToolCallIdFactory(random: () => number = Math.random): ToolCallIdFactory {
  return (index) => {
    let suffix = '';
    for (let i = 0; i < 8; i += 1) suffix += Math.floor(random() * 36).toString(36);
    return `call_${index}_${suffix}`;
  };
}

/** A tool call as a server sent it: an id of any type (or none), its name, and its arguments as JSON text. */
export interface RawToolCall {
  readonly id: unknown;
  readonly name: string;
  readonly arguments: string;
}

/** Gives every call a non-empty id that no other call of the answer has. */
export function normalizeToolCalls(
  calls: readonly RawToolCall[],
  makeId: ToolCallIdFactory,
): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call, index) => {
    let id =
      typeof call.id === 'string' && call.id !== '' && !seen.has(call.id) ? call.id : makeId(index);
    while (seen.has(id)) id = makeId(index);
    seen.add(id);
    return { id, name: call.name, arguments: call.arguments };
  });
}

/** Tool-call arguments as JSON text; servers that send an object get it serialised. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value.trim() === '' ? '{}' : value;
  if (value === undefined || value === null) return '{}';
  return JSON.stringify(value);
}

/** The object behind a value, or `undefined` when it is not a plain JSON object. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A token count from the wire: missing, negative or malformed counts are 0, fractions are rounded. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}
