export { bearerKeyMatches } from './bearer-auth.js';
export { type ChatRequest, parseChatRequest } from './chat-request.js';
export {
  type ChatCompletion,
  type ChatCompletionChunk,
  completionOf,
  type OpenAIUsage,
  usageOf,
} from './chat-response.js';
export type { ChatRunSettings } from './chat-run.js';
export { createJarvisServer } from './jarvis-server.js';
export { ApiError, type ApiErrorOptions, type ApiErrorType } from './openai-error.js';
export { createPageApi, type PageApiOptions } from './page-api.js';
export { createPageChat, type PageChatOptions, type PageChatRequest } from './page-chat.js';
export { MAX_API_TEXT_CHARS } from './page-json.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type JarvisServerOptions,
} from './server-options.js';
export {
  DEFAULT_SERVE_PORT,
  isLoopbackHost,
  type RunningJarvisServer,
  type StartJarvisServerOptions,
  startJarvisServer,
} from './start-server.js';
export {
  createWebAssets,
  findWebFolder,
  WEB_NOT_BUILT_TEXT,
  WEB_SECURITY_HEADERS,
  type WebAssetsOptions,
} from './web-assets.js';
