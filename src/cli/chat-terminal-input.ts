import { createInterface, type Interface } from 'node:readline';
import { type Readable, Writable } from 'node:stream';
import type { ChatInput, LineEvent } from './chat-input.js';
import type { CliStream } from './cli-io.js';

/** A terminal's input stream: raw mode switches Ctrl-C from a signal into a key. */
export type TerminalStdin = Readable & {
  readonly isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
};

/** Options of a `TerminalInput`. */
export interface TerminalInputOptions {
  readonly stdin: TerminalStdin;
  /** Where the prompt and the edited line are drawn. */
  readonly output: CliStream;
  /** Earlier lines, newest first (the up arrow recalls them). */
  readonly history?: readonly string[];
  /** Most lines kept in the history (default 1000). */
  readonly historySize?: number;
  /** The program's signal (SIGTERM): a prompt waiting for a line ends as if Ctrl-D was pressed. */
  readonly signal?: AbortSignal;
}

const CTRL_C = '\u0003';

/**
 * The chat's input on a terminal: node's readline line editor (cursor keys, history, Ctrl-A/E/U/W…) for each
 * prompt, made afresh for each line and closed while an answer runs, so that the answer, the spinner and an
 * approval prompt own the terminal then. While an answer runs stdin stays in raw mode and Ctrl-C is a key the
 * chat reads (it cancels the answer), never a signal that would end the program.
 */
export class TerminalInput implements ChatInput {
  readonly interactive = true;
  readonly #options: TerminalInputOptions;
  readonly #output: Writable;
  #history: string[];
  #watchers = 0;

  constructor(options: TerminalInputOptions) {
    this.#options = options;
    this.#output = writableOf(options.output);
    this.#history = [...(options.history ?? [])];
  }

  /** Puts earlier lines (newest first) before the ones typed in this chat. */
  useHistory(lines: readonly string[]): void {
    this.#history = [...this.#history, ...lines];
  }

  /** The lines typed so far and the ones loaded, newest first. */
  get history(): readonly string[] {
    return this.#history;
  }

  readLine(prompt: string): Promise<LineEvent> {
    return new Promise((resolve) => {
      const rl = this.#editor(prompt, true);
      const { signal } = this.#options;
      let done = false;
      const finish = (event: LineEvent) => {
        if (done) return;
        done = true;
        signal?.removeEventListener('abort', onAbort);
        rl.close();
        resolve(event);
      };
      const onAbort = () => finish({ type: 'end' });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted === true) onAbort();
      rl.on('history', (history: string[]) => {
        this.#history = [...history];
      });
      rl.on('line', (text: string) => finish({ type: 'line', text }));
      rl.on('SIGINT', () => {
        const hadText = rl.line !== '';
        this.#output.write('^C\n');
        finish({ type: 'interrupt', hadText });
      });
      rl.on('close', () => {
        if (!done) this.#output.write('\n');
        finish({ type: 'end' });
      });
      rl.prompt();
    });
  }

  watchInterrupt(onInterrupt: () => void): () => void {
    const { stdin } = this.#options;
    const onData = (chunk: Buffer | string) => {
      if (chunk.toString().includes(CTRL_C)) onInterrupt();
    };
    stdin.on('data', onData);
    this.#watchers += 1;
    this.#listen();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stdin.off('data', onData);
      this.#watchers -= 1;
      if (this.#watchers === 0) this.#release();
    };
  }

  ask(question: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      const rl = this.#editor(question, false);
      let done = false;
      const finish = (answer: string | undefined) => {
        if (done) return;
        done = true;
        rl.close();
        // Closing the editor released stdin; an answer that is still running keeps watching for Ctrl-C.
        if (this.#watchers > 0) this.#listen();
        resolve(answer);
      };
      rl.on('line', (text: string) => finish(text));
      rl.on('SIGINT', () => {
        this.#output.write('^C\n');
        finish(undefined);
      });
      rl.on('close', () => finish(undefined));
      rl.prompt();
    });
  }

  close(): void {
    if (this.#watchers === 0) this.#release();
  }

  #editor(prompt: string, withHistory: boolean): Interface {
    const size = this.#options.historySize ?? 1000;
    return createInterface({
      input: this.#options.stdin,
      output: this.#output,
      terminal: true,
      prompt,
      history: withHistory ? [...this.#history] : [],
      historySize: withHistory ? size : 0,
      removeHistoryDuplicates: true,
      tabSize: 4,
    });
  }

  #listen(): void {
    this.#options.stdin.setRawMode?.(true);
    this.#options.stdin.resume();
  }

  #release(): void {
    this.#options.stdin.pause();
    this.#options.stdin.setRawMode?.(false);
  }
}

/** A writable stream over a CLI stream (readline writes its prompt and line there), knowing its width. */
function writableOf(stream: CliStream): Writable {
  const writable = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      stream.write(chunk.toString());
      callback();
    },
  });
  Object.defineProperty(writable, 'columns', { get: () => stream.columns });
  Object.defineProperty(writable, 'isTTY', { get: () => stream.isTTY });
  return writable;
}
