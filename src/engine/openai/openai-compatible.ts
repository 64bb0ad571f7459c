import { JarvisError } from '../../core/index.js';
import type { HttpEngineOptions } from '../http/engine-requests.js';
import { HttpChatEngine } from '../http/http-chat-engine.js';
import { OpenAIDialect } from './openai-dialect.js';

/** Where each OpenAI-compatible server listens by default (`openai` has none: pass its base URL). */
export const OPENAI_COMPATIBLE_DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
  vllm: 'http://127.0.0.1:8000',
  llamacpp: 'http://127.0.0.1:8080',
  sglang: 'http://127.0.0.1:30000',
  lmstudio: 'http://127.0.0.1:1234',
};

/** Options of an `OpenAICompatibleEngine`. */
export interface OpenAICompatibleEngineOptions extends HttpEngineOptions {
  /** The server, with or without a trailing `/v1`; defaults by `engineId` (see `OPENAI_COMPATIBLE_DEFAULT_BASE_URLS`). */
  readonly baseUrl?: string;
  /** Registry key named in errors: `vllm`, `llamacpp`, `sglang`, `lmstudio`, `openai` (default). */
  readonly engineId?: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /**
   * Also read tool calls that the model wrote into its text (for servers without a tool-call parser). Default: on,
   * except for OpenAI's own API (`api.openai.com`, Azure OpenAI), whose models call tools natively only; a
   * `toolCallFormat` turns it on there too.
   */
  readonly textToolCalls?: boolean;
  /**
   * The format the model writes tool calls in as text (`qwen3-coder`, `glm-4.5`, `hermes`, …: a
   * `ToolCallFormat` name), read before the others; default: chosen from the model's name.
   */
  readonly toolCallFormat?: string | undefined;
  /** Ask streams for a usage chunk (`stream_options.include_usage`); default true. */
  readonly streamUsage?: boolean;
}

/**
 * An engine for any server that speaks the OpenAI Chat Completions API (vLLM, llama.cpp server, SGLang,
 * LM Studio, OpenAI): tool calls, SSE streaming, reasoning kept out of the answer, retries on transient failures.
 */
export class OpenAICompatibleEngine extends HttpChatEngine {
  constructor(options: OpenAICompatibleEngineOptions = {}) {
    const engineId = options.engineId ?? 'openai';
    const apiKey = options.apiKey;
    const sentApiKey = apiKey !== undefined && apiKey !== '';
    // The server's address, without `/v1`.
    const baseUrl = resolveBaseUrl(engineId, options.baseUrl);
    super({
      ...options,
      engineId,
      baseUrl,
      dialect: new OpenAIDialect({ streamUsage: options.streamUsage ?? true, sentApiKey }),
      textToolCalls:
        options.textToolCalls ??
        (options.toolCallFormat !== undefined || !isOpenAIsOwnApi(baseUrl)),
      headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...options.headers },
      secrets: [apiKey],
    });
  }
}

/**
 * Whether `baseUrl` is OpenAI's own API (or Azure OpenAI): its models call tools natively and never in their text,
 * so reading text there could only mistake an answer that shows a call's syntax for a call. Every other server
 * (vLLM, llama.cpp, LM Studio, a hosted Qwen or DeepSeek) may run a model that writes its calls as text.
 */
export function isOpenAIsOwnApi(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname.toLowerCase().replace(/\.$/, '');
    return host === 'api.openai.com' || host.endsWith('.openai.azure.com');
  } catch {
    return false;
  }
}

/** The server address without a trailing slash or `/v1`, checked to be an http(s) URL. */
function resolveBaseUrl(engineId: string, baseUrl: string | undefined): string {
  const chosen = baseUrl ?? OPENAI_COMPATIBLE_DEFAULT_BASE_URLS[engineId];
  if (chosen === undefined || chosen.trim() === '') {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `The '${engineId}' engine needs a baseUrl (for OpenAI: https://api.openai.com/v1); default addresses exist for ${Object.keys(OPENAI_COMPATIBLE_DEFAULT_BASE_URLS).join(', ')}`,
    });
  }
  return chosen.trim().replace(/\/+$/, '').replace(/\/v1$/, '');
}
