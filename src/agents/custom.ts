import {
  type Agent,
  type AgentContext,
  AgentError,
  type AgentResult,
  type AgentRunOptions,
  type InferenceEngine,
} from '../core/index.js';

/** What `CustomAgent` accepts: the usual agent options, kept for subclasses and otherwise unused. */
export interface CustomAgentOptions {
  readonly engine?: InferenceEngine;
  readonly model?: string;
  readonly [option: string]: unknown;
}

/** What a `CustomAgent` that was not subclassed says when it is run. */
export const CUSTOM_AGENT_NOT_IMPLEMENTED_MESSAGE =
  "CustomAgent is a template. Subclass CustomAgent (or BaseAgent), override run() with your agent's logic, " +
  "and register it with @AgentRegistry.register('your-agent').";

/**
 * The template for user-defined agents (registry key `custom`): constructible with or without options, and
 * its `run` rejects with `agent_not_implemented` until a subclass overrides it.
 */
export class CustomAgent implements Agent {
  readonly agentId: string = 'custom';
  protected readonly engine: InferenceEngine | undefined;
  protected readonly model: string;
  /** The options given to the constructor, for subclasses. */
  protected readonly options: CustomAgentOptions;

  constructor(options: CustomAgentOptions = {}) {
    this.options = options;
    this.engine = options.engine;
    this.model = typeof options.model === 'string' ? options.model : '';
  }

  /** Rejects with `AgentError` code `agent_not_implemented`; subclasses override it. */
  async run(
    _input: string,
    _context?: AgentContext,
    _options?: AgentRunOptions,
  ): Promise<AgentResult> {
    throw new AgentError({
      code: 'agent_not_implemented',
      agentId: this.agentId,
      message: CUSTOM_AGENT_NOT_IMPLEMENTED_MESSAGE,
      partialResult: { content: '', toolResults: [], turns: 0, metadata: {}, messages: [] },
    });
  }
}
