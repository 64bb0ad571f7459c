import { type Clock, systemClock } from '../core/index.js';
import type { CliStream } from './cli-io.js';
import { untrustedLine } from './cli-output.js';
import { truncate } from './table.js';

/** Options of a `WaitingNotice`. */
export interface WaitingNoticeOptions {
  readonly stderr: CliStream;
  readonly clock?: Clock;
  /** How long a model call may go without a token before the notice shows (default 1000 ms). */
  readonly delayMs?: number;
  /** How often the spinner is redrawn (default 100 ms). */
  readonly frameMs?: number;
  /** Called before the notice is drawn (stdout ends its open line there on a terminal). */
  readonly beforeDraw?: () => void;
  /** True while something else owns the status line (a tool's spinner): the notice waits. */
  readonly blocked?: () => boolean;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\u001b[2K';

/** A model call being waited for: which model, where, and since when. */
interface Waiting {
  readonly model: string;
  readonly address: () => string;
  readonly startedMs: number;
}

/**
 * Says that the model is being waited for when a call brought no token for a while (a hung or slow server
 * otherwise shows nothing at all): on a terminal only, a spinner line
 * `⠋ waiting for <model> at <address>… (Ctrl-C to cancel) 1.2s` on stderr, erased as soon as tokens come or
 * the call ends.
 */
export class WaitingNotice {
  readonly #stderr: CliStream;
  readonly #clock: Clock;
  readonly #options: WaitingNoticeOptions;
  #waiting: Waiting | undefined;
  #delay: ReturnType<typeof setTimeout> | undefined;
  #frames: ReturnType<typeof setInterval> | undefined;
  #frame = 0;
  #drawn = false;

  constructor(options: WaitingNoticeOptions) {
    this.#options = options;
    this.#stderr = options.stderr;
    this.#clock = options.clock ?? systemClock;
  }

  /** A model call started; `address` is asked for when the notice is drawn. */
  started(model: string, address: () => string): void {
    this.settled();
    if (!this.#stderr.isTTY) return;
    this.#waiting = { model, address, startedMs: this.#clock.monotonicMs() };
    this.#delay = setTimeout(() => this.#show(), this.#options.delayMs ?? 1000);
    this.#delay.unref?.();
  }

  /** Tokens arrived or the call ended: the notice is erased and no longer due. */
  settled(): void {
    if (this.#delay !== undefined) clearTimeout(this.#delay);
    if (this.#frames !== undefined) clearInterval(this.#frames);
    this.#delay = undefined;
    this.#frames = undefined;
    this.#waiting = undefined;
    this.#erase();
  }

  #show(): void {
    this.#delay = undefined;
    this.#draw();
    this.#frames = setInterval(() => {
      this.#frame = (this.#frame + 1) % FRAMES.length;
      this.#draw();
    }, this.#options.frameMs ?? 100);
    this.#frames.unref?.();
  }

  #draw(): void {
    const waiting = this.#waiting;
    if (waiting === undefined || this.#options.blocked?.() === true) return;
    this.#options.beforeDraw?.();
    const seconds = (this.#clock.monotonicMs() - waiting.startedMs) / 1000;
    const where = untrustedLine(waiting.address());
    const text = `${FRAMES[this.#frame]} waiting for ${untrustedLine(waiting.model)} at ${where}… (Ctrl-C to cancel)`;
    const elapsed = `${seconds.toFixed(1)}s`;
    const columns = this.#stderr.columns > 0 ? this.#stderr.columns : 80;
    const width = Math.max(20, columns - 1) - elapsed.length - 1;
    this.#stderr.write(`${CLEAR_LINE}${truncate(text, width)} ${elapsed}`);
    this.#drawn = true;
  }

  #erase(): void {
    if (!this.#drawn) return;
    this.#stderr.write(CLEAR_LINE);
    this.#drawn = false;
  }
}
