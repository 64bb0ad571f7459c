import {
  type FinishReason,
  ReasoningSplitter,
  type StreamChunk,
  type TokenUsage,
} from '../../core/index.js';

/** How an answer ended, as its stream's end chunk tells it. */
export interface StreamEnd {
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage;
  readonly model: string;
}

/** The end chunk of a stream, its `ttftSeconds` 0 until the engine fills in the measured one. */
export function endChunk(end: StreamEnd): StreamChunk {
  return {
    type: 'end',
    finishReason: end.finishReason,
    usage: end.usage,
    model: end.model,
    ttftSeconds: 0,
  };
}

/** A reasoning chunk and a text chunk, each only when it has text. */
export function textChunks(reasoning: string, content: string): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  if (reasoning !== '') chunks.push({ type: 'reasoning_delta', text: reasoning });
  if (content !== '') chunks.push({ type: 'text_delta', text: content });
  return chunks;
}

/** The reasoning of an answer from its parts (a reasoning field, `<think>` blocks), the empty ones left out. */
export function joinReasoning(...parts: string[]): string {
  return parts.filter((part) => part !== '').join('\n\n');
}

/** Turns the reasoning and content of each streamed delta into chunks, `<think>` blocks as reasoning. */
export class ReasoningChunker {
  readonly #splitter = new ReasoningSplitter();

  /** Takes one delta, its reasoning field and its content; returns the chunks they complete. */
  push(reasoning: string, content: string): StreamChunk[] {
    const split = content === '' ? { content: '', reasoning: '' } : this.#splitter.push(content);
    return textChunks(reasoning + split.reasoning, split.content);
  }

  /** Ends the stream: the chunks of the text held back while a tag might have been starting. */
  flush(): StreamChunk[] {
    const rest = this.#splitter.flush();
    return textChunks(rest.reasoning, rest.content);
  }
}
