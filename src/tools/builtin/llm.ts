import {
  createMessage,
  createToolSpec,
  describeError,
  type GenerateOptions,
  type GenerateResult,
  type InferenceEngine,
  JarvisError,
  type Message,
  Role,
  splitReasoning,
  type TokenUsage,
  type ToolArguments,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
} from '../../core/index.js';
import { BaseTool } from '../base-tool.js';

/** Prices of a model in US dollars per million tokens. */
export interface LLMPricing {
  readonly promptPerMillionUsd: number;
  readonly completionPerMillionUsd: number;
}

/** Options of an `LLMTool`. */
export interface LLMToolOptions {
  /** The engine sub-queries go to; without one every call fails with a clear message. */
  readonly engine?: InferenceEngine;
  /** The model identifier as the engine knows it. */
  readonly model?: string;
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** Used to compute `costUsd`; the cost is 0 without it. */
  readonly pricing?: LLMPricing;
  /** Longest a call may run before the executor reports a timeout (default 120 s). */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Sends one prompt (with an optional system message) to the injected inference engine and returns the
 * answer without its reasoning blocks, with the engine's token usage and the cost from `pricing`.
 */
export class LLMTool extends BaseTool {
  readonly toolId = 'llm';
  readonly spec: ToolSpec;
  readonly #engine: InferenceEngine | undefined;
  readonly #model: string;
  readonly #generateOptions: Omit<GenerateOptions, 'model' | 'signal'>;
  readonly #pricing: LLMPricing | undefined;

  constructor(options: LLMToolOptions = {}) {
    super();
    checkOptions(options);
    this.#engine = options.engine;
    this.#model = options.model ?? '';
    this.#pricing = options.pricing;
    this.#generateOptions = {
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    };
    this.spec = createToolSpec({
      name: 'llm',
      description: 'Send a prompt to a language model. Useful for sub-queries or summarization.',
      parameters: {
        type: 'object',
        properties: {
          prompt: { type: 'string', description: 'The prompt to send to the language model.' },
          system: { type: 'string', description: 'Optional system message to set context.' },
        },
        required: ['prompt'],
      },
      category: 'inference',
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
  }

  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    const engine = this.#engine;
    if (engine === undefined) return this.failure('No inference engine configured.');
    if (this.#model === '') return this.failure('No model configured.');
    const messages = buildMessages(params);
    if (typeof messages === 'string') return this.failure(messages, 'invalid_arguments');
    let result: GenerateResult;
    try {
      result = await engine.generate(messages, {
        model: this.#model,
        ...this.#generateOptions,
        ...(context === undefined ? {} : { signal: context.signal }),
      });
    } catch (error) {
      const code = context?.signal.aborted ? 'cancelled' : 'tool_error';
      return this.failure(`LLM error (engine '${engine.engineId}'): ${describeError(error)}`, code);
    }
    return this.#respond(engine, result);
  }

  #respond(engine: InferenceEngine, result: GenerateResult): ToolResult {
    const usage: TokenUsage = result.usage;
    return this.success(splitReasoning(result.content ?? '').content, {
      usage,
      costUsd: costOf(usage, this.#pricing),
      metadata: {
        engine: engine.engineId,
        model: result.model ?? this.#model,
        finish_reason: result.finishReason,
      },
    });
  }
}

/** The messages of one call, or why the arguments cannot make them. */
function buildMessages(params: ToolArguments): Message[] | string {
  const { prompt, system } = params;
  if (prompt === undefined || prompt === null || prompt === '') return 'No prompt provided.';
  if (typeof prompt !== 'string') return `prompt must be a string, got ${typeof prompt}.`;
  if (system !== undefined && system !== null && typeof system !== 'string') {
    return `system must be a string, got ${typeof system}.`;
  }
  const messages: Message[] = [];
  if (typeof system === 'string' && system !== '')
    messages.push(createMessage(Role.SYSTEM, system));
  messages.push(createMessage(Role.USER, prompt));
  return messages;
}

/** The cost of a call in US dollars; 0 without pricing. */
function costOf(usage: Partial<TokenUsage>, pricing: LLMPricing | undefined): number {
  if (pricing === undefined) return 0;
  const prompt = (usage.promptTokens ?? 0) * pricing.promptPerMillionUsd;
  const completion = (usage.completionTokens ?? 0) * pricing.completionPerMillionUsd;
  return (prompt + completion) / 1_000_000;
}

function checkOptions(options: LLMToolOptions): void {
  const problems: string[] = [];
  const { temperature, maxTokens, pricing, timeoutMs } = options;
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= 0)) {
    problems.push(`temperature must be a number >= 0, got ${String(temperature)}`);
  }
  if (maxTokens !== undefined && !(Number.isSafeInteger(maxTokens) && maxTokens > 0)) {
    problems.push(`maxTokens must be a positive integer, got ${String(maxTokens)}`);
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    problems.push(`timeoutMs must be a positive number, got ${String(timeoutMs)}`);
  }
  for (const key of ['promptPerMillionUsd', 'completionPerMillionUsd'] as const) {
    const price = pricing?.[key];
    if (
      pricing !== undefined &&
      !(typeof price === 'number' && Number.isFinite(price) && price >= 0)
    ) {
      problems.push(`pricing.${key} must be a number >= 0, got ${String(price)}`);
    }
  }
  if (problems.length > 0) {
    throw new JarvisError({ code: 'invalid_argument', message: `LLMTool: ${problems.join('; ')}` });
  }
}
