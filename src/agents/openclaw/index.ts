export {
  HttpTransport,
  type HttpTransportOptions,
  OPENCLAW_DEFAULT_HOST,
} from './http-transport.js';
export { OpenClawAgent, type OpenClawAgentOptions, type OpenClawMode } from './openclaw-agent.js';
export {
  checkReplyCorrelation,
  createOpenClawMessage,
  OPENCLAW_MESSAGE_TYPES,
  type OpenClawIdOptions,
  type OpenClawMessage,
  type OpenClawMessageInit,
  type OpenClawMessageType,
  OpenClawProtocolError,
  parseMessage,
  serializeMessage,
} from './protocol.js';
export { SubprocessTransport, type SubprocessTransportOptions } from './subprocess-transport.js';
export {
  OPENCLAW_DEFAULT_TIMEOUT_MS,
  OPENCLAW_HEALTH_TIMEOUT_MS,
  OPENCLAW_MAX_MESSAGE_BYTES,
  type OpenClawSendOptions,
  type OpenClawTransport,
  OpenClawTransportError,
  type OpenClawTransportFailure,
} from './transport.js';
