export { buildAgentMessages, MAX_TURNS_MESSAGE, stripThinkTags } from './agent-messages.js';
export {
  type AgentGenerateExtras,
  BaseAgent,
  type BaseAgentOptions,
  isInstrumented,
} from './base-agent.js';
