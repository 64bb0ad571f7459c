import { OpenClawProtocolError } from './protocol.js';

const NEWLINE = 0x0a;

/**
 * Cuts a byte stream into newline-terminated UTF-8 lines and refuses any line longer than `maxLineBytes`, so a
 * runaway writer cannot make the reader buffer without limit.
 */
export class LineSplitter {
  readonly maxLineBytes: number;
  #parts: Buffer[] = [];
  #size = 0;

  constructor(maxLineBytes: number) {
    this.maxLineBytes = maxLineBytes;
  }

  /** Feeds a chunk; returns the lines it completed (without `\n` or a trailing `\r`); throws when one is too long. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.#append(chunk.subarray(start, end));
      lines.push(this.#take());
      start = end + 1;
    }
    if (start < chunk.length) this.#append(chunk.subarray(start));
    return lines;
  }

  #append(piece: Buffer): void {
    this.#size += piece.length;
    if (this.#size > this.maxLineBytes) {
      this.#parts = [];
      this.#size = 0;
      throw new OpenClawProtocolError(
        `OpenClaw runtime wrote a line longer than the ${this.maxLineBytes}-byte limit; each message must be one JSON object on one line`,
      );
    }
    if (piece.length > 0) this.#parts.push(piece);
  }

  #take(): string {
    const text = Buffer.concat(this.#parts, this.#size).toString('utf8');
    this.#parts = [];
    this.#size = 0;
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }
}
