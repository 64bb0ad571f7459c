import type { GenerateOptions, Message } from '../../core/index.js';
import { withToolInstructions } from '../wire/formats/format-instructions.js';
import type { ToolCallFormat } from '../wire/formats/tool-call-format.js';
import { offeredTools } from '../wire/offered-tools.js';
import { isToolsUnsupportedError } from './tools-unsupported.js';

/** A call as sent to a server that takes no tools: the tools described in the prompt, none in the request. */
export interface TextToolCall {
  readonly messages: readonly Message[];
  readonly options: GenerateOptions;
}

/**
 * The text-protocol fallback of an engine: a model whose server refused `tools` once (Ollama's "does not
 * support tools", llama-server without `--jinja`, vLLM without tool parsing) gets its tools described in the
 * system prompt in its own family's call syntax from then on, and its calls are read from the text.
 */
export class ToolsAsText {
  readonly #enabled: boolean;
  readonly #models = new Set<string>();

  /** `enabled`: the engine reads tool calls written as text (without that, the fallback could find no call). */
  constructor(enabled: boolean) {
    this.#enabled = enabled;
  }

  /** Whether this call goes as text: it offers tools and its model's server refused them before. */
  uses(options: GenerateOptions): boolean {
    return this.#models.has(options.model) && offeredTools(options).length > 0;
  }

  /** Whether `error` is the server refusing the tools this call offered (then the model is remembered). */
  refused(error: unknown, options: GenerateOptions): boolean {
    if (!this.#enabled || offeredTools(options).length === 0) return false;
    if (!isToolsUnsupportedError(error)) return false;
    this.#models.add(options.model);
    return true;
  }

  /** The call rewritten for the server: instructions in `format`'s syntax (Hermes when none is known). */
  rewrite(
    messages: readonly Message[],
    options: GenerateOptions,
    format: ToolCallFormat | undefined,
  ): TextToolCall {
    const { tools: _tools, toolChoice: _choice, ...rest } = options;
    return {
      messages: withToolInstructions(messages, offeredTools(options), format),
      options: rest,
    };
  }
}
