export {
  assistantReply,
  errorReply,
  ScriptedEngine,
  type ScriptedEngineAnswer,
  type ScriptedEngineCall,
  type ScriptedEngineFailure,
  type ScriptedEngineOptions,
  type ScriptedEngineReply,
  type ScriptedEngineReplyExtra,
  type ScriptedEngineStaticReply,
  type ScriptedEngineToolCall,
  toolCallReply,
  UnconsumedRepliesError,
  UnexpectedEngineCallError,
} from './scripted-engine.js';
export { ScriptedTool, type ScriptedToolOptions, type ScriptedToolStep } from './scripted-tool.js';
export {
  createTinyGguf,
  TINY_GGUF_CHATML_TEMPLATE,
  TINY_GGUF_TOKENS,
  type TinyGgufOptions,
  writeTinyGguf,
} from './tiny-gguf.js';
