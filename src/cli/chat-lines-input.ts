import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ChatInput, LineEvent } from './chat-input.js';

/**
 * The chat's input through a pipe: lines of stdin, one after another, with no prompt; the end of stdin ends
 * the chat. Nobody can be asked anything (approvals are refused).
 */
export class LinesInput implements ChatInput {
  readonly interactive = false;
  readonly #stdin: Readable;
  readonly #lines: AsyncIterator<string>;
  #closed = false;

  constructor(stdin: Readable) {
    this.#stdin = stdin;
    const rl = createInterface({
      input: stdin,
      terminal: false,
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    this.#lines = rl[Symbol.asyncIterator]();
  }

  async readLine(_prompt: string): Promise<LineEvent> {
    if (this.#closed) return { type: 'end' };
    const next = await this.#lines.next();
    return next.done === true ? { type: 'end' } : { type: 'line', text: next.value };
  }

  watchInterrupt(_onInterrupt: () => void): () => void {
    return () => undefined;
  }

  ask(_question: string): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    void this.#lines.return?.();
    this.#stdin.pause();
  }
}
