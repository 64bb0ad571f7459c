import type { HttpEngineOptions } from '../http/engine-requests.js';
import { HttpChatEngine, type ToolCallFormatLog } from '../http/http-chat-engine.js';
import { OllamaDialect } from './ollama-dialect.js';
import { resolveOllamaHost } from './ollama-host.js';
import type { OllamaThink } from './ollama-wire.js';

/** Options of an `OllamaEngine`. */
export interface OllamaEngineOptions extends HttpEngineOptions {
  /** The server, as `OLLAMA_HOST` takes it (`host:port`, `http(s)://host:port[/path]`); default `http://127.0.0.1:11434`. */
  readonly host?: string;
  /** Registry key named in errors; default `ollama`. */
  readonly engineId?: string;
  /** Also read tool calls that the model wrote into its text when tools were offered; default true. */
  readonly textToolCalls?: boolean;
  /**
   * The format the model writes tool calls in as text (`qwen3-coder`, `glm-4.5`, `hermes`, …: a
   * `ToolCallFormat` name), read before the others; default: chosen from what `/api/show` says about the model
   * (its template, parser or family), else from its name.
   */
  readonly toolCallFormat?: string | undefined;
  /** Longest wait for `/api/show` (asked once per model when tools are offered); default 2 s. */
  readonly showTimeoutMs?: number;
  /** Receives which formats a model's text tool calls are read with (and why), once per model and on change. */
  readonly onToolCallFormat?: ToolCallFormatLog;
  /** Ollama `think`: turn a thinking model's reasoning on or off, or set its level; not sent when absent. */
  readonly think?: OllamaThink;
  /** Never ask for a context window (`num_ctx`) smaller than this; default 4096. */
  readonly minContextTokens?: number;
  /** Never ask for a context window larger than this; default 32768. */
  readonly maxContextTokens?: number;
}

/**
 * An engine for Ollama's native API (`/api/chat`): tool calls with object arguments both ways, NDJSON streaming,
 * reasoning kept out of the answer, tool calls written as text recovered in the format the model's template
 * says, and a context window sized to each request (Ollama's small default would silently cut long prompts).
 */
export class OllamaEngine extends HttpChatEngine {
  constructor(options: OllamaEngineOptions = {}) {
    // The server's address, as resolved from `host`.
    const baseUrl = resolveOllamaHost(options.host);
    const dialect = new OllamaDialect({
      minContextTokens: options.minContextTokens,
      maxContextTokens: options.maxContextTokens,
      think: options.think,
      showTimeoutMs: options.showTimeoutMs,
      clock: options.clock,
    });
    super({
      ...options,
      engineId: options.engineId ?? 'ollama',
      baseUrl,
      dialect,
      textToolCalls: options.textToolCalls ?? true,
    });
  }
}
