import type { ToolCall } from '../../../core/index.js';
import { extractTextToolCalls } from '../text-tool-calls.js';
import { toolCallFormatsFor } from './family-formats.js';
import type { OfferedToolSet, TextCall, ToolCallFormat } from './tool-call-format.js';

/** The answer text with the calls cut out, and the calls with their ids. */
export interface FoundTextToolCalls {
  readonly content: string;
  readonly toolCalls: ToolCall[];
}

/** Options of `readTextToolCalls`. */
export interface ReadTextToolCallsOptions {
  /** The model that wrote the reply (its name selects the formats that also occur in prose). */
  readonly model?: string | undefined;
  /** The formats to try after the common ones (default: chosen from `model`). */
  readonly formats?: readonly ToolCallFormat[];
  /** Makes the id of a call whose text carries none. */
  readonly generateId: () => string;
}

/**
 * The tool calls a model wrote into its reply text: first the common formats (`<tool_call>` JSON, Mistral,
 * Llama, pythonic lists, a reply that is only a call), then each model family's format whose marker the reply
 * holds. Only offered tools count; never throws; `undefined` when there is no call.
 */
export function readTextToolCalls(
  content: string,
  tools: OfferedToolSet,
  options: ReadTextToolCallsOptions,
): FoundTextToolCalls | undefined {
  if (tools.names.size === 0) return undefined;
  const common = extractTextToolCalls(content, [...tools.names], {
    generateId: options.generateId,
  });
  if (common !== undefined && common.toolCalls.length > 0) return common;
  for (const format of options.formats ?? toolCallFormatsFor(options.model)) {
    if (!format.markers.some((marker) => content.includes(marker))) continue;
    const found = readSafely(format, content, tools);
    if (found === undefined || found.calls.length === 0) continue;
    return { content: found.content, toolCalls: withIds(found.calls, options.generateId) };
  }
  return undefined;
}

function readSafely(format: ToolCallFormat, content: string, tools: OfferedToolSet) {
  try {
    return format.read(content, tools);
  } catch {
    return undefined; // a reader bug never costs the answer
  }
}

const MODEL_ID = /^[\w.:-]{1,64}$/;

function withIds(calls: readonly TextCall[], generateId: () => string): ToolCall[] {
  const used = new Set<string>();
  return calls.map((call) => {
    const own = call.id !== undefined && MODEL_ID.test(call.id) && !used.has(call.id);
    const id = own ? (call.id as string) : generateId();
    used.add(id);
    return { id, name: call.name, arguments: call.arguments };
  });
}
