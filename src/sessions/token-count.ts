import type { Message, OpenAIFunctionTool } from '../core/index.js';

/**
 * Counts the prompt tokens a request would use: the engine's tokenizer where it has one, else an estimate.
 * Counts should be additive over messages (two lists counted apart sum to about their count together), which holds
 * for chat templates up to a few tokens; `epoch`, when present, changes whenever the counter would count the same
 * messages differently (a calibrated counter after learning), so caches of its counts know to start over.
 */
export interface TokenCounter {
  count(
    messages: readonly Message[],
    tools: readonly OpenAIFunctionTool[],
  ): Promise<number> | number;
  readonly epoch?: number;
}

/** Chat-template tokens around each message (role markers, separators), as the Ollama estimate assumes. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Template tokens around each tool definition (the wrapper text chat templates put around the JSON). */
export const TOOL_OVERHEAD_TOKENS = 10;
/** Bytes per token assumed: conservative for English, about right for code and CJK (3 UTF-8 bytes each). */
const BYTES_PER_TOKEN = 3;

/** UTF-8 length of `text` without encoding it (lone surrogates count as the 3 bytes of U+FFFD). */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2; // four bytes for the pair's two UTF-16 units
        index += 1;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

/** Estimated tokens of one message: its bytes (content, tool-call names and arguments) over 3, plus template overhead. */
export function estimateMessageTokens(message: Message): number {
  let bytes = utf8Bytes(message.content);
  for (const call of message.toolCalls ?? [])
    bytes += utf8Bytes(call.name) + utf8Bytes(call.arguments);
  return Math.ceil(bytes / BYTES_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS;
}

/** Estimated tokens of the tool definitions: each one's JSON bytes over 3 plus its template share. */
export function estimateToolTokens(tools: readonly OpenAIFunctionTool[]): number {
  let tokens = 0;
  for (const tool of tools) {
    tokens += Math.ceil(utf8Bytes(JSON.stringify(tool)) / BYTES_PER_TOKEN) + TOOL_OVERHEAD_TOKENS;
  }
  return tokens;
}

/**
 * Estimates prompt tokens without a tokenizer, like the Ollama engine's estimate (UTF-8 bytes over 3 plus 4 per
 * message), with each tool definition counted on its own plus a share for the template text around it.
 */
export function estimateTokens(
  messages: readonly Message[],
  tools: readonly OpenAIFunctionTool[] = [],
): number {
  let tokens = estimateToolTokens(tools);
  for (const message of messages) tokens += estimateMessageTokens(message);
  return tokens;
}

/** The bytes-based estimate as a `TokenCounter`. */
export const estimateCounter: TokenCounter = { count: estimateTokens };

/** Options of a `CalibratedCounter`. */
export interface CalibratedCounterOptions {
  /** The counter to calibrate (default the bytes-based estimate). */
  readonly base?: TokenCounter;
  /** The ratio of real to estimated tokens to start from (default 1). */
  readonly initialRatio?: number;
  /** Smallest and largest ratio ever applied (default 0.5 and 3). */
  readonly minRatio?: number;
  readonly maxRatio?: number;
  /** Share of the newest observation when it raises the ratio (default 0.5): the counter learns to count higher fast. */
  readonly riseWeight?: number;
  /** Share of the newest observation when it lowers the ratio (default 0.1): it learns to count lower slowly. */
  readonly fallWeight?: number;
  /** Added on top of the learned ratio, so counts err high (default 0.05: 5 %). */
  readonly safetyMargin?: number;
  /** The applied ratio is changed (and `epoch` moves) only when the learned one drifts this far (default 0.03). */
  readonly driftTolerance?: number;
}

/**
 * An estimate that learns from the prompt token counts engines report after a call: an exponentially weighted
 * ratio of real to estimated tokens (rising fast, falling slowly, clamped), applied with a safety margin so it
 * errs high. The applied ratio changes in steps (when the learned one drifts past a tolerance), so caches of its
 * counts stay valid between steps; each step moves `epoch`.
 */
export class CalibratedCounter implements TokenCounter {
  readonly #base: TokenCounter;
  readonly #min: number;
  readonly #max: number;
  readonly #rise: number;
  readonly #fall: number;
  readonly #margin: number;
  readonly #tolerance: number;
  #learned: number;
  #anchor: number;
  #epoch = 0;

  constructor(options: CalibratedCounterOptions = {}) {
    this.#base = options.base ?? estimateCounter;
    this.#min = positiveOr(options.minRatio, 0.5);
    this.#max = Math.max(this.#min, positiveOr(options.maxRatio, 3));
    this.#rise = weightOr(options.riseWeight, 0.5);
    this.#fall = weightOr(options.fallWeight, 0.1);
    this.#margin = Math.max(0, finiteOr(options.safetyMargin, 0.05));
    this.#tolerance = Math.max(0, finiteOr(options.driftTolerance, 0.03));
    this.#learned = this.#clamp(positiveOr(options.initialRatio, 1));
    this.#anchor = this.#learned;
  }

  /** Changes whenever the applied ratio changes. */
  get epoch(): number {
    return this.#epoch;
  }

  /** The ratio counts are multiplied by (learned ratio at the last step, plus the safety margin). */
  get ratio(): number {
    return this.#anchor * (1 + this.#margin);
  }

  /** The base count times the applied ratio, rounded up. */
  count(
    messages: readonly Message[],
    tools: readonly OpenAIFunctionTool[],
  ): Promise<number> | number {
    const base = this.#base.count(messages, tools);
    return typeof base === 'number' ? this.#scale(base) : base.then((value) => this.#scale(value));
  }

  /**
   * Learns from one call: `estimated` is what `count` returned for the prompt sent, `actualPromptTokens` what the
   * engine reported. Nonsense (zero, negative, not a number) is ignored.
   */
  observe(estimated: number, actualPromptTokens: number): void {
    if (!(estimated > 0 && actualPromptTokens > 0)) return;
    if (!Number.isFinite(estimated) || !Number.isFinite(actualPromptTokens)) return;
    const sample = this.#clamp((actualPromptTokens / estimated) * this.ratio);
    const weight = sample > this.#learned ? this.#rise : this.#fall;
    this.#learned = this.#clamp(this.#learned + weight * (sample - this.#learned));
    if (Math.abs(this.#learned - this.#anchor) > this.#tolerance * this.#anchor) {
      this.#anchor = this.#learned;
      this.#epoch += 1;
    }
  }

  #scale(base: number): number {
    return Math.ceil(base * this.ratio);
  }

  #clamp(ratio: number): number {
    return Math.min(this.#max, Math.max(this.#min, ratio));
  }
}

function finiteOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) ? value : fallback;
}

function positiveOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

function weightOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 && value <= 1
    ? value
    : fallback;
}
