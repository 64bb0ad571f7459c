export { buildAgentMessages, MAX_TURNS_MESSAGE, stripThinkTags } from './agent-messages.js';
export {
  type AgentGenerateExtras,
  BaseAgent,
  type BaseAgentOptions,
} from './base-agent.js';
export {
  CUSTOM_AGENT_NOT_IMPLEMENTED_MESSAGE,
  CustomAgent,
  type CustomAgentOptions,
} from './custom.js';
export { LoopGuard, type LoopGuardOptions, type LoopGuardVerdict } from './loop-guard.js';
export {
  buildOpenHandsSystemPrompt,
  NativeOpenHandsAgent,
  type NativeOpenHandsAgentOptions,
} from './native-openhands.js';
export {
  buildReActSystemPrompt,
  NATIVE_REACT_AGENT_KEYS,
  NativeReActAgent,
  type NativeReActAgentOptions,
} from './native-react.js';
export {
  checkReplyCorrelation,
  createOpenClawMessage,
  HttpTransport,
  type HttpTransportOptions,
  OPENCLAW_DEFAULT_HOST,
  OPENCLAW_DEFAULT_TIMEOUT_MS,
  OPENCLAW_HEALTH_TIMEOUT_MS,
  OPENCLAW_MAX_MESSAGE_BYTES,
  OPENCLAW_MESSAGE_TYPES,
  OpenClawAgent,
  type OpenClawAgentOptions,
  type OpenClawIdOptions,
  type OpenClawMessage,
  type OpenClawMessageInit,
  type OpenClawMessageType,
  type OpenClawMode,
  OpenClawProtocolError,
  type OpenClawSendOptions,
  type OpenClawTransport,
  OpenClawTransportError,
  type OpenClawTransportFailure,
  parseMessage,
  SubprocessTransport,
  type SubprocessTransportOptions,
  serializeMessage,
} from './openclaw/index.js';
export {
  OrchestratorAgent,
  type OrchestratorAgentOptions,
  type OrchestratorMode,
} from './orchestrator.js';
export {
  buildStructuredSystemPrompt,
  buildToolSelectionGuide,
  STRUCTURED_PROMPT_VERSION,
} from './orchestrator-prompt.js';
export { runStructuredLoop, type StructuredLoopDeps } from './orchestrator-structured.js';
export { RLMAgent, type RLMAgentOptions } from './rlm.js';
export { buildRlmSystemPrompt } from './rlm-prompt.js';
export type { RlmInterpreter, RlmInterpreterFactory } from './rlm-session.js';
export { SimpleAgent, type SimpleAgentOptions } from './simple.js';
export {
  buildTextToolCall,
  normalizeToolInput,
  parseTextProtocolReply,
  resolveToolSpec,
  type TextProtocolLabel,
  type TextProtocolReply,
} from './text-protocol.js';
export { runTextProtocolLoop, type TextProtocolLoopDeps } from './text-protocol-loop.js';
