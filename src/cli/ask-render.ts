import type { AgentStreamEvent } from '../core/index.js';
import type { CliStream } from './cli-io.js';

/** Writes the answer to stdout and remembers whether the last line is still open. */
export class AnswerWriter {
  readonly #stdout: CliStream;
  #lineOpen = false;

  constructor(stdout: CliStream) {
    this.#stdout = stdout;
  }

  /** Writes answer text as it comes. */
  write(text: string): void {
    if (text === '') return;
    this.#stdout.write(text);
    this.#lineOpen = !text.endsWith('\n');
  }

  /** Ends the current line when one is open, so that output ends with a newline. */
  endLine(): void {
    if (!this.#lineOpen) return;
    this.#stdout.write('\n');
    this.#lineOpen = false;
  }

  /** Ends the open line only when stdout is a terminal (before stderr draws between answer tokens). */
  endLineOnTerminal(): void {
    if (this.#stdout.isTTY) this.endLine();
  }
}

/**
 * Renders a streamed run on stdout: text deltas as they arrive (each turn on its own line), then the final
 * answer only when it was not streamed as the last turn's text (agents that do not stream, or a result that
 * differs, such as the message after the turn limit). Stdout ends with a newline.
 */
export class StreamedAnswer {
  readonly #writer: AnswerWriter;
  #turn: number | undefined;
  #turnText = '';

  constructor(writer: AnswerWriter) {
    this.#writer = writer;
  }

  /** Handles one event of `jarvis.stream()`; events other than text and the result are ignored here. */
  handle(event: AgentStreamEvent): void {
    if (event.type === 'text_delta') this.#text(event.turn, event.text);
    else if (event.type === 'result') this.#result(event.result.content);
  }

  #text(turn: number, text: string): void {
    if (turn !== this.#turn) {
      this.#writer.endLine();
      this.#turn = turn;
      this.#turnText = '';
    }
    this.#turnText += text;
    this.#writer.write(text);
  }

  #result(content: string): void {
    if (this.#turn === undefined || content.trim() !== this.#turnText.trim()) {
      this.#writer.endLine();
      this.#writer.write(content);
    }
    this.#writer.endLine();
  }
}
