export { abortReason, throwIfAborted, untilAborted } from './abort.js';
export {
  type Agent,
  type AgentContext,
  AgentError,
  type AgentErrorOptions,
  type AgentResult,
  type AgentRunOptions,
  type AgentStreamEvent,
  createAgentContext,
} from './agent.js';
export { type Clock, elapsedSeconds, systemClock } from './clock.js';
export { Conversation, type ConversationOptions } from './conversation.js';
export { closestMatch, didYouMean } from './did-you-mean.js';
export {
  EngineError,
  type EngineErrorOptions,
  type FinishReason,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
  type SignalOptions,
  type StreamChunk,
  type ToolChoice,
} from './engine.js';
export {
  type AgentErrorCode,
  DATABASE_STORES,
  type DatabaseErrorCode,
  type DatabaseStore,
  type EngineErrorCode,
  type ErrorCodeOf,
  isJarvisErrorCode,
  JARVIS_ERROR_CODES,
  type JarvisErrorArea,
  type JarvisErrorCode,
  type SchedulerErrorCode,
  TOOL_ERROR_CODES,
  type ToolErrorCode,
} from './error-codes.js';
export {
  databaseIncompatibleError,
  databaseUnreadableError,
  describeError,
  JarvisError,
  type JarvisErrorOptions,
} from './errors.js';
export type {
  AgentTurnEndPayload,
  AgentTurnStartPayload,
  InferenceEndPayload,
  InferenceStartPayload,
  LoopGuardTriggeredPayload,
  MemoryRetrievePayload,
  MemoryStorePayload,
  PublishedEventPayloads,
  SchedulerTaskEndPayload,
  SchedulerTaskStartPayload,
  TelemetryRecord,
  TelemetryRecordPayload,
  ToolCallEndPayload,
  ToolCallStartPayload,
  ToolTimeoutPayload,
} from './event-payloads.js';
export { EventType, isEventType } from './event-types.js';
export {
  type AnyJarvisEvent,
  EventBus,
  type EventBusOptions,
  type EventHandler,
  type EventPayloadMap,
  type GenericEventPayload,
  type JarvisEvent,
  type ListenerError,
} from './events.js';
export {
  isPlainObject,
  type JsonArray,
  type JsonObject,
  type JsonValue,
  jsonTypeName,
  toJsonValue,
} from './json.js';
export { LinkedList, type ListLinks } from './linked-list.js';
export type {
  MemoryBackend,
  MemoryResult,
  RetrieveOptions,
  StoreOptions,
} from './memory.js';
export { createMessage, type Message, Role, type ToolCall } from './messages.js';
export {
  type PositiveNumberRule,
  positiveNumberOption,
  type WholeNumberRule,
  wholeNumberOption,
} from './option-checks.js';
export {
  type ReasoningParts,
  ReasoningSplitter,
  type ReasoningSplitterOptions,
  splitReasoning,
} from './reasoning.js';
export {
  createRedactor,
  REDACTED,
  type Redactor,
  redactDeep,
  redactSecrets,
} from './redact.js';
export {
  AgentRegistry,
  type AgentRegistryEntry,
  createRegistries,
  EngineRegistry,
  type EngineRegistryEntry,
  MemoryRegistry,
  type MemoryRegistryEntry,
  type RegistrySet,
  ToolRegistry,
  type ToolRegistryEntry,
} from './registries.js';
export { type RegistrableClass, Registry, type RegistryInstance } from './registry.js';
export { bestScore, formatRelevance, relativeRelevance } from './relevance.js';
export { loadSqliteDriver, SQLITE_DRIVER_PACKAGE } from './sqlite-driver.js';
export { isTerminalSafe, safeForTerminal } from './terminal-text.js';
export { isTool, type Tool, type ToolArguments, type ToolContext } from './tool.js';
export {
  type ToolResult,
  type ToolResultExtra,
  toolFailure,
  toolSuccess,
} from './tool-result.js';
export {
  createToolSpec,
  type JsonSchema,
  type OpenAIFunctionTool,
  type ToolSpec,
  type ToolSpecInit,
  toOpenAIFunction,
} from './tool-spec.js';
export {
  NoSuchAgentError,
  type NoSuchAgentErrorOptions,
  NoSuchEngineError,
  type NoSuchEngineErrorOptions,
  NoSuchToolError,
  type NoSuchToolErrorOptions,
  unknownNameMessage,
} from './unknown-name.js';
export { addUsage, type TokenUsage, ZERO_USAGE } from './usage.js';
