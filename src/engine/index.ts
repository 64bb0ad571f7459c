export {
  type DiscoveredEngine,
  type EngineCandidate,
  type ProbeOptions,
  probeEngines,
} from './discovery.js';
export {
  EmbeddedLlamaEngine,
  type EmbeddedLlamaEngineOptions,
  findDefaultModel,
} from './embedded-llama.js';
export { HttpClient, type HttpClientOptions, type SleepFunction } from './http-client.js';
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
} from './http-timeouts.js';
export { OllamaEngine, type OllamaEngineOptions } from './ollama.js';
export { OLLAMA_DEFAULT_HOST, resolveOllamaHost } from './ollama-host.js';
export {
  OPENAI_COMPATIBLE_DEFAULT_BASE_URLS,
  OpenAICompatibleEngine,
  type OpenAICompatibleEngineOptions,
} from './openai-compatible.js';
export type { EngineRequestLog, EngineRequestLogEntry } from './request-log.js';
export {
  extractTextToolCalls,
  type TextToolCallOptions,
  type TextToolCalls,
} from './text-tool-calls.js';
