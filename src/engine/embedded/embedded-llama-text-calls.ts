import type { GenerateOptions, GenerateResult, StreamChunk } from '../../core/index.js';
import { withTextToolCalls } from '../wire/engine-results.js';
import { toolCallFormatsForTemplate } from '../wire/formats/template-formats.js';
import type { OfferedToolSet, ToolCallFormat } from '../wire/formats/tool-call-format.js';
import { textToolSet } from '../wire/offered-tools.js';
import { TextToolCallBuffer } from '../wire/text-tool-call-buffer.js';
import type { ToolCallIdFactory } from '../wire/wire-format.js';

/** Receives the chunks a streamed call passes on. */
export type ChunkListener = (chunk: StreamChunk) => void;

/**
 * Tool calls an embedded model wrote as text instead of through its chat format's function calling (a template
 * node-llama-cpp does not know the call syntax of, a model that ignores it): read in the syntax the GGUF's chat
 * template shows, held back from the stream from where a call could start, as the HTTP engines do.
 */
export class EmbeddedTextCalls {
  readonly #tools: OfferedToolSet;
  readonly #formats: readonly ToolCallFormat[];
  readonly #makeId: ToolCallIdFactory;
  readonly #buffer: TextToolCallBuffer | undefined;
  readonly #onDelta: ChunkListener | undefined;

  constructor(
    tools: OfferedToolSet,
    formats: readonly ToolCallFormat[],
    makeId: ToolCallIdFactory,
    model: string,
    onDelta: ChunkListener | undefined,
  ) {
    this.#tools = tools;
    this.#formats = formats;
    this.#makeId = makeId;
    this.#onDelta = onDelta;
    this.#buffer =
      onDelta === undefined ? undefined : new TextToolCallBuffer(tools, model, makeId, formats);
  }

  /** Passes a streamed chunk on, up to where a call could start. */
  readonly push = (chunk: StreamChunk): void => {
    if (this.#buffer === undefined || this.#onDelta === undefined) return;
    for (const out of this.#buffer.pass([chunk])) this.#onDelta(out);
  };

  /**
   * The answer with the calls its text holds (and their text cut out); a stream gets the held text that is not a
   * call. Calls node-llama-cpp already parsed are kept as they are.
   */
  finish(result: GenerateResult): GenerateResult {
    const parsed = withTextToolCalls(
      { ...result, reasoning: result.reasoning ?? '' },
      this.#tools,
      this.#makeId,
      this.#formats,
    );
    if (this.#buffer !== undefined && this.#onDelta !== undefined) {
      const ending = this.#buffer.end(result.toolCalls.map(toolCallChunk), {
        finishReason: parsed.finishReason,
        usage: parsed.usage,
        model: parsed.model,
      });
      for (const chunk of ending) {
        if (chunk.type === 'text_delta' || chunk.type === 'reasoning_delta') this.#onDelta(chunk);
      }
    }
    const { reasoning, ...rest } = parsed;
    return { ...result, ...rest, ...(reasoning === '' ? {} : { reasoning }) };
  }
}

function toolCallChunk(toolCall: GenerateResult['toolCalls'][number]): StreamChunk {
  return { type: 'tool_call', toolCall };
}

/**
 * The text-call reader of one embedded call, or `undefined` when the call offers no tools or forces a call (the
 * grammar then makes the model call through its chat format).
 */
export function embeddedTextCalls(
  template: string | undefined,
  model: string,
  options: GenerateOptions,
  forced: boolean,
  makeId: ToolCallIdFactory,
  onDelta: ChunkListener | undefined,
): EmbeddedTextCalls | undefined {
  const tools = textToolSet(options, true);
  if (forced || tools.names.size === 0) return undefined;
  const formats = toolCallFormatsForTemplate(template ?? '', model);
  return new EmbeddedTextCalls(tools, formats, makeId, model, onDelta);
}
