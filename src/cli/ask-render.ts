import { type AgentStreamEvent, safeForTerminal } from '../core/index.js';
import { answerTextOf } from './ask-stop.js';
import type { CliStream } from './cli-io.js';

/**
 * Writes the answer to stdout and remembers whether the last line is still open. A pipe gets exactly the
 * model's text; a terminal gets it with escape sequences and other control characters shown visibly (chunk by
 * chunk: a sequence split across chunks is harmless once its ESC is replaced; a `\r` ending a chunk waits for
 * the next one, so that `\r\n` split in two still ends the line).
 */
export class AnswerWriter {
  readonly #stdout: CliStream;
  #lineOpen = false;
  #pendingReturn = false;

  constructor(stdout: CliStream) {
    this.#stdout = stdout;
  }

  /** Writes answer text as it comes. */
  write(text: string): void {
    const shown = this.#stdout.isTTY ? this.#forTerminal(text) : text;
    if (shown === '') return;
    this.#stdout.write(shown);
    this.#lineOpen = !shown.endsWith('\n');
  }

  /** Ends the current line when one is open, so that output ends with a newline. */
  endLine(): void {
    this.#flushReturn();
    if (!this.#lineOpen) return;
    this.#stdout.write('\n');
    this.#lineOpen = false;
  }

  #forTerminal(text: string): string {
    let pending = this.#pendingReturn ? `\r${text}` : text;
    this.#pendingReturn = pending.endsWith('\r');
    if (this.#pendingReturn) pending = pending.slice(0, -1);
    return safeForTerminal(pending);
  }

  /** A `\r` that no `\n` followed is shown as what it is. */
  #flushReturn(): void {
    if (!this.#pendingReturn) return;
    this.#pendingReturn = false;
    this.#stdout.write(safeForTerminal('\r'));
    this.#lineOpen = true;
  }

  /** Ends the open line only when stdout is a terminal (before stderr draws between answer tokens). */
  endLineOnTerminal(): void {
    if (this.#stdout.isTTY) this.endLine();
  }
}

/**
 * Renders a streamed run on stdout: text deltas as they arrive (each turn on its own line), then the final
 * answer only when it was not streamed as the last turn's text (agents that do not stream, or a result that
 * differs); a stopped run's notice is left to stderr. Stdout ends with a newline.
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
    else if (event.type === 'result') this.#result(answerTextOf(event.result));
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
    if (content !== '' && (this.#turn === undefined || content.trim() !== this.#turnText.trim())) {
      this.#writer.endLine();
      this.#writer.write(content);
    }
    this.#writer.endLine();
  }
}
