import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  OLLAMA_DEFAULT_HOST,
  OPENAI_COMPATIBLE_DEFAULT_BASE_URLS,
  type OpenAICompatibleEngineOptions,
} from '../engine/index.js';

/** Receives one redacted entry per engine request attempt and per finished stream (method, URL, status, time). */
export type EngineRequestLogCallback = NonNullable<OpenAICompatibleEngineOptions['onRequest']>;

/** OpenAI's own API: where an API key belongs when no other address was configured with it. */
export const OPENAI_API_BASE_URL = 'https://api.openai.com/v1';

/** Where engines are and how to reach them: from flags, config and environment (flags win). */
export interface EngineSettings {
  /** An explicit server address (`--base-url`), used by the chosen engine. */
  readonly baseUrl?: string;
  /** Per-engine server addresses (config `[engine.<key>] host`, `OLLAMA_HOST`, `OPENAI_BASE_URL`). */
  readonly hosts?: Readonly<Partial<Record<string, string>>>;
  /**
   * API key for OpenAI-compatible servers (`[engine.openai] api_key`, `OPENAI_API_KEY`). It is sent only to the
   * address it was configured for: `baseUrl` when given, else the `openai` host, else OpenAI's own API; never to
   * a local server found by discovery at another address.
   */
  readonly apiKey?: string;
  /** GGUF file for the embedded engine. */
  readonly modelPath?: string;
  /** Folder searched for a GGUF file when no model path is given (default `~/.openjarvis/models`). */
  readonly modelsDir?: string;
  /** How the embedded engine runs; each unset field is the engine's default (what the GGUF and machine say). */
  readonly embedded?: EmbeddedRunSettings;
  /** First-byte timeout of HTTP engines (see `HttpEngineOptions.timeoutMs`). */
  readonly timeoutMs?: number;
  /** Receives every HTTP engine request as it finishes (for `--verbose`); entries hold no secrets. */
  readonly requestLog?: EngineRequestLogCallback;
  /** Read tool calls that models write as text (default on, except on OpenAI's own API: see OpenAICompatibleEngine). */
  readonly textToolCalls?: boolean;
  /** The format those calls are in (a `ToolCallFormat` name); default: chosen from the model's name. */
  readonly toolCallFormat?: string | undefined;
}

/** `[engine.embedded] gpu, threads, context_size, chat_wrapper`. */
export interface EmbeddedRunSettings {
  /** Offload to a GPU when one works (default true). */
  readonly gpu?: boolean | undefined;
  /** CPU threads (default all cores). */
  readonly threads?: number | undefined;
  /** Context size in tokens (default what fits, at most the trained length). */
  readonly contextSize?: number | undefined;
  /** Chat format: `auto` (the GGUF's template) or a node-llama-cpp wrapper name. */
  readonly chatWrapper?: string | undefined;
}

/** The engine settings the environment gives: `OLLAMA_HOST`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`. */
export function engineSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): EngineSettings {
  const hosts: Record<string, string> = {};
  if (env.OLLAMA_HOST) hosts.ollama = env.OLLAMA_HOST;
  if (env.OPENAI_BASE_URL) hosts.openai = env.OPENAI_BASE_URL;
  return { hosts, ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}) };
}

/** The address an engine key will be reached at with these settings (a URL, or a model file). */
export function engineAddress(key: string, settings: EngineSettings = {}): string {
  const explicit = settings.baseUrl ?? settings.hosts?.[key];
  if (explicit !== undefined) return explicit;
  if (key === 'ollama') return OLLAMA_DEFAULT_HOST;
  if (key === 'embedded')
    return settings.modelPath ?? join(settings.modelsDir ?? defaultModelsDir(), '*.gguf');
  return OPENAI_COMPATIBLE_DEFAULT_BASE_URLS[key] ?? '(no address configured)';
}

/** Where GGUF models are looked for when no folder is configured: `~/.openjarvis/models`. */
export function defaultModelsDir(): string {
  return join(homedir(), '.openjarvis', 'models');
}

/** Whether two server addresses name the same OpenAI-compatible server (`/v1` and trailing slashes aside). */
export function sameServer(left: string, right: string): boolean {
  return serverIdentity(left) === serverIdentity(right);
}

function serverIdentity(address: string): string {
  const trimmed = address.trim();
  let normal = trimmed;
  try {
    const url = new URL(trimmed);
    normal = `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    normal = trimmed.toLowerCase();
  }
  return normal.replace(/\/+$/, '').replace(/\/v1$/, '');
}
