import { type Clock, systemClock } from '../core/index.js';
import type { CliStream } from './cli-io.js';
import { truncate } from './table.js';

/** Options of `ProgressLine`. */
export interface ProgressLineOptions {
  readonly clock?: Clock;
  /** Fewest milliseconds between two redraws (default 80). */
  readonly intervalMs?: number;
  /** Width of the moving bar in characters (default 12). */
  readonly barWidth?: number;
}

/** Erases the current terminal line and returns to its start. */
const CLEAR_LINE = '\r\u001b[2K';

/**
 * One self-redrawing status line on a terminal (`[  ===   ] 12 files, 48 chunks  docs/a.md`), for work whose
 * total is unknown. On a stream that is not a TTY it writes nothing at all.
 */
export class ProgressLine {
  readonly #stream: CliStream;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #barWidth: number;
  #lastDrawMs = Number.NEGATIVE_INFINITY;
  #frame = 0;
  #shown = false;

  constructor(stream: CliStream, options: ProgressLineOptions = {}) {
    this.#stream = stream;
    this.#clock = options.clock ?? systemClock;
    this.#intervalMs = options.intervalMs ?? 80;
    this.#barWidth = Math.max(options.barWidth ?? 12, 4);
  }

  /** Whether anything is drawn (the stream is a terminal). */
  get active(): boolean {
    return this.#stream.isTTY;
  }

  /** Shows `text` after the bar; redraws at most once per interval unless `force`. */
  update(text: string, force = false): void {
    if (!this.active) return;
    const now = this.#clock.monotonicMs();
    if (!force && now - this.#lastDrawMs < this.#intervalMs) return;
    this.#lastDrawMs = now;
    this.#frame += 1;
    const line = `${this.#bar()} ${text}`;
    // A terminal that reports no width (0, as some pseudo-terminals do) is taken as 80 columns.
    const columns = this.#stream.columns > 0 ? this.#stream.columns : 80;
    this.#stream.write(`${CLEAR_LINE}${truncate(line, Math.max(columns - 1, 10))}`);
    this.#shown = true;
  }

  /** Erases the line (before the final summary or an error is printed). */
  clear(): void {
    if (!this.#shown) return;
    this.#stream.write(CLEAR_LINE);
    this.#shown = false;
  }

  /** A three-character block bouncing inside the bar, one step per redraw. */
  #bar(): string {
    const inner = this.#barWidth - 2;
    const span = inner - 3;
    const step = this.#frame % (2 * span);
    const start = step <= span ? step : 2 * span - step;
    return `[${' '.repeat(start)}===${' '.repeat(inner - 3 - start)}]`;
  }
}
