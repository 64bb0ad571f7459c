import {
  type Clock,
  elapsedSeconds,
  type GenerateResult,
  type StreamChunk,
} from '../../core/index.js';
import { readVisibleText } from './formats/read-text-tool-calls.js';
import type { OfferedToolSet, ToolCallFormat } from './formats/tool-call-format.js';
import { joinReasoning } from './stream-chunks.js';
import { findTextToolCalls } from './text-tool-call-buffer.js';
import type { ParsedCompletion, ToolCallIdFactory } from './wire-format.js';

/**
 * A whole answer with the calls of the named tools that the model wrote into its text moved into `toolCalls`
 * (finish reason `tool_calls`), unless no tool is named or the answer already has structured calls. An answer
 * with no call written in a format's markup (GPT-OSS channels, Functionary `all`, Command R response tokens,
 * GigaChat message ends) keeps only the text the user should see, the reasoning the markup set apart added to
 * `reasoning`.
 */
export function withTextToolCalls(
  parsed: ParsedCompletion,
  tools: OfferedToolSet,
  makeId: ToolCallIdFactory,
  formats?: readonly ToolCallFormat[],
): ParsedCompletion {
  if (tools.names.size === 0 || parsed.toolCalls.length > 0) return parsed;
  const found = findTextToolCalls(parsed.content, tools, parsed.model, makeId, formats);
  if (found === undefined || found.toolCalls.length === 0) {
    const visible = readVisibleText(parsed.content, {
      model: parsed.model,
      ...(formats === undefined ? {} : { formats }),
    });
    if (visible === undefined) return parsed;
    return {
      ...parsed,
      content: visible.content,
      reasoning: joinReasoning(parsed.reasoning, visible.reasoning ?? ''),
    };
  }
  return {
    ...parsed,
    content: found.content,
    toolCalls: found.toolCalls,
    finishReason: 'tool_calls',
  };
}

/** The `GenerateResult` of a parsed answer, with `reasoning` only when there was some. */
export function toGenerateResult(parsed: ParsedCompletion, ttftSeconds: number): GenerateResult {
  const result: GenerateResult = {
    content: parsed.content,
    toolCalls: parsed.toolCalls,
    usage: parsed.usage,
    finishReason: parsed.finishReason,
    model: parsed.model,
    ttftSeconds,
  };
  return parsed.reasoning === '' ? result : { ...result, reasoning: parsed.reasoning };
}

/** The chunks of a stream as they come, its end chunk carrying the seconds from `startedMs` to the first chunk. */
export async function* withTimeToFirstChunk(
  chunks: AsyncIterable<StreamChunk>,
  clock: Clock,
  startedMs: number,
): AsyncGenerator<StreamChunk> {
  let ttftSeconds: number | undefined;
  for await (const chunk of chunks) {
    ttftSeconds ??= elapsedSeconds(clock, startedMs);
    yield chunk.type === 'end' ? { ...chunk, ttftSeconds } : chunk;
  }
}
