import { type Clock, EngineError, isPlainObject, systemClock } from '../../core/index.js';
import type { DialectJsonRequest } from '../http/chat-dialect.js';
import { toolCallFormatsFor } from '../wire/formats/family-formats.js';
import {
  chooseToolCallFormats,
  type ModelEvidence,
  type ToolCallFormatChoice,
} from '../wire/formats/template-formats.js';

/** Ollama's path that describes one model. */
export const OLLAMA_SHOW_PATH = '/api/show';
/** Default longest wait for `/api/show` before reading the model's tool calls by its name. */
export const DEFAULT_SHOW_TIMEOUT_MS = 2_000;
/** Default time a server's refusal (a 4xx answer) is remembered before asking again. */
export const DEFAULT_SHOW_RETRY_AFTER_MS = 60_000;

/** What an `/api/show` answer says about the model: its template, parser and families; malformed fields are skipped. */
export function readOllamaShow(body: unknown, model: string): ModelEvidence {
  if (!isPlainObject(body)) return { model };
  const details = isPlainObject(body.details) ? body.details : {};
  const info = isPlainObject(body.model_info) ? body.model_info : {};
  const families = [
    info['general.architecture'],
    details.family,
    ...(Array.isArray(details.families) ? details.families : []),
  ].filter((value): value is string => typeof value === 'string');
  return {
    model,
    template: typeof body.template === 'string' ? body.template : undefined,
    parser: typeof body.parser === 'string' ? body.parser : undefined,
    families,
  };
}

/** Options of `OllamaFormatChooser`. */
export interface OllamaFormatChooserOptions {
  /** Longest wait for `/api/show`; default 2 s. */
  readonly timeoutMs?: number | undefined;
  /** How long a 4xx answer is remembered before asking again; default 60 s. */
  readonly retryAfterMs?: number | undefined;
  readonly clock?: Clock | undefined;
}

interface CachedChoice {
  choice: Promise<ToolCallFormatChoice>;
  /** When to ask again (set once the answer failed); `undefined` while it stands. */
  retryAtMs: number | undefined;
}

/**
 * Chooses the tool-call formats of each Ollama model from its `/api/show` answer (template, parser, family),
 * asked once per model. A failure or a slow answer reads by the model's name and never fails the chat: a timeout,
 * a cancelled call or a broken connection is asked again on the next call, a 4xx answer after `retryAfterMs`.
 */
export class OllamaFormatChooser {
  readonly #cache = new Map<string, CachedChoice>();
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #clock: Clock;

  constructor(options: OllamaFormatChooserOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_SHOW_TIMEOUT_MS;
    this.#retryAfterMs = options.retryAfterMs ?? DEFAULT_SHOW_RETRY_AFTER_MS;
    this.#clock = options.clock ?? systemClock;
  }

  /** The formats of `model`'s text tool calls; never rejects. */
  choose(
    model: string,
    request: DialectJsonRequest,
    signal?: AbortSignal,
  ): Promise<ToolCallFormatChoice> {
    const cached = this.#cache.get(model);
    const stale = cached?.retryAtMs !== undefined && this.#clock.monotonicMs() >= cached.retryAtMs;
    if (cached !== undefined && !stale) return cached.choice;
    const entry: CachedChoice = { choice: Promise.resolve(byName(model)), retryAtMs: undefined };
    entry.choice = this.#ask(model, request, signal, entry);
    this.#cache.set(model, entry);
    return entry.choice;
  }

  async #ask(
    model: string,
    request: DialectJsonRequest,
    signal: AbortSignal | undefined,
    entry: CachedChoice,
  ): Promise<ToolCallFormatChoice> {
    try {
      const timeoutMs = this.#timeoutMs;
      const answer = await request({
        path: OLLAMA_SHOW_PATH,
        body: { model },
        model,
        timeoutMs,
        signal,
      });
      return chooseToolCallFormats(readOllamaShow(answer, model));
    } catch (error) {
      // Asked again on the next call, or after `retryAfterMs` when the server refused.
      const status = error instanceof EngineError ? error.status : undefined;
      const refused =
        status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
      entry.retryAtMs = this.#clock.monotonicMs() + (refused ? this.#retryAfterMs : 0);
      return byName(model);
    }
  }
}

function byName(model: string): ToolCallFormatChoice {
  return { formats: toolCallFormatsFor(model), source: 'name' };
}
