import { type Clock, type Redactor, systemClock, type ToolResult } from '../core/index.js';
import { describeArguments } from './approval.js';
import type { CliStream } from './cli-io.js';
import { diagnosticText, untrustedLine } from './cli-output.js';

/** A tool call that started (the payload of the bus's `tool_call_start`). */
export interface ToolCallStarted {
  readonly toolName: string;
  readonly callId: string;
  readonly arguments: unknown;
}

/** A tool call that ended (the payload of the bus's `tool_call_end`). */
export interface ToolCallEnded {
  readonly toolName: string;
  readonly callId: string;
  readonly result: ToolResult;
}

/** Options of a `ToolActivity`. */
export interface ToolActivityOptions {
  readonly stderr: CliStream;
  readonly clock?: Clock;
  /** Called before anything is drawn on stderr (stdout ends its open line there on a terminal). */
  readonly beforeDraw?: () => void;
  /** Extra words for a failed call (why it was refused and what to do), or undefined. */
  readonly explainFailure?: (ended: ToolCallEnded) => string | undefined;
  /** How often the spinner is redrawn (default 100 ms). */
  readonly frameMs?: number;
  /** The redactor for tool errors (the system's, knowing the configured secrets), once there is one. */
  readonly redactor?: () => Redactor | undefined;
}

interface RunningCall {
  readonly toolName: string;
  readonly args: string;
  readonly startedMs: number;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

/**
 * Shows tool calls on stderr as they run: on a terminal, a spinner line with the tool name and elapsed time that
 * is replaced by `✓ name args 2 ms` / `✗ name args: error`; elsewhere plain lines `→ name args`, `✓ name 2 ms`,
 * `✗ name: error`. Names, arguments and errors come from the model and tools: they are shown on one line with
 * terminal escapes made visible, and errors are redacted.
 */
export class ToolActivity {
  readonly #stderr: CliStream;
  readonly #clock: Clock;
  readonly #options: ToolActivityOptions;
  readonly #running = new Map<string, RunningCall>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #frame = 0;
  #drawn = false;
  #suspended = 0;

  constructor(options: ToolActivityOptions) {
    this.#options = options;
    this.#stderr = options.stderr;
    this.#clock = options.clock ?? systemClock;
  }

  /** True while a call is running (its spinner owns the status line). */
  get busy(): boolean {
    return this.#running.size > 0;
  }

  /** A call started: a plain `→` line, or the spinner on a terminal. */
  start(call: ToolCallStarted): void {
    const args = untrustedLine(describeArguments(call.arguments));
    const toolName = untrustedLine(call.toolName);
    this.#options.beforeDraw?.();
    if (!this.#stderr.isTTY) {
      this.#stderr.write(`→ ${toolName} ${args}\n`);
      return;
    }
    this.#running.set(call.callId, {
      toolName,
      args,
      startedMs: this.#clock.monotonicMs(),
    });
    this.#draw();
    this.#timer ??= setInterval(() => this.#tick(), this.#options.frameMs ?? 100);
    this.#timer.unref?.();
  }

  /** A call ended: its `✓`/`✗` line (replacing the spinner on a terminal). */
  end(ended: ToolCallEnded): void {
    const running = this.#running.get(ended.callId);
    this.#running.delete(ended.callId);
    this.#options.beforeDraw?.();
    this.#erase();
    const label =
      running === undefined ? untrustedLine(ended.toolName) : `${running.toolName} ${running.args}`;
    this.#stderr.write(`${this.#outcome(label, ended)}\n`);
    if (this.#running.size === 0) this.#stopTimer();
    else this.#draw();
  }

  /** Runs `work` (a confirmation prompt) with the spinner erased and paused, then draws it again. */
  async suspend<T>(work: () => Promise<T>): Promise<T> {
    this.#suspended += 1;
    this.#erase();
    try {
      return await work();
    } finally {
      this.#suspended -= 1;
      this.#draw();
    }
  }

  /** Stops the spinner and erases it; safe to call more than once. */
  close(): void {
    this.#stopTimer();
    this.#erase();
    this.#running.clear();
  }

  #outcome(label: string, ended: ToolCallEnded): string {
    const { result } = ended;
    if (result.success) return `✓ ${label} ${formatLatency(result.latencySeconds)}`;
    const why =
      this.#options.explainFailure?.(ended) ??
      diagnosticText(firstLine(result.content), this.#options.redactor?.(), { singleLine: true });
    return `✗ ${label}: ${why}`;
  }

  #tick(): void {
    this.#frame = (this.#frame + 1) % FRAMES.length;
    this.#draw();
  }

  #draw(): void {
    if (!this.#stderr.isTTY || this.#suspended > 0 || this.#running.size === 0) return;
    const calls = [...this.#running.values()];
    const oldest = Math.min(...calls.map((call) => call.startedMs));
    const only = calls.length === 1 ? calls[0] : undefined;
    const label =
      only === undefined
        ? calls.map((call) => call.toolName).join(', ')
        : `${only.toolName} ${only.args}`;
    const elapsed = `${((this.#clock.monotonicMs() - oldest) / 1000).toFixed(1)}s`;
    const columns = this.#stderr.columns > 0 ? this.#stderr.columns : 80;
    const width = Math.max(20, columns - 1);
    const text = fitWidth(`${FRAMES[this.#frame]} ${label}`, width - elapsed.length - 1);
    this.#stderr.write(`${CLEAR_LINE}${text} ${elapsed}`);
    this.#drawn = true;
  }

  #erase(): void {
    if (!this.#drawn) return;
    this.#stderr.write(CLEAR_LINE);
    this.#drawn = false;
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** `<1 ms`, `12 ms`, `1.5 s`. */
export function formatLatency(seconds: number): string {
  const ms = seconds * 1000;
  if (!Number.isFinite(ms) || ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The first non-empty line of a tool's error text, cut to 200 characters. */
function firstLine(text: string): string {
  const line = text.split('\n').find((part) => part.trim() !== '') ?? 'failed';
  return fitWidth(line.trim(), 200);
}

function fitWidth(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(1, width - 1))}…` : text;
}
