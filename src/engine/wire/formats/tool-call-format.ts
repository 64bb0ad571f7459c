import type { JsonSchema } from '../../../core/index.js';

/** The tools offered to the model, as a reader needs them: their names and parameter schemas. */
export interface OfferedToolSet {
  /** Names of the offered tools; a call naming anything else is not a call. */
  readonly names: ReadonlySet<string>;
  /** The JSON Schema of a tool's parameters (to type XML-style parameter values), when known. */
  readonly parametersOf: (name: string) => JsonSchema | undefined;
}

/** One call read from a reply, before it gets an id. */
export interface TextCall {
  readonly name: string;
  /** The arguments as JSON object text (`{}` when none). */
  readonly arguments: string;
  /** The id the model wrote, if its format carries one. */
  readonly id?: string | undefined;
}

/** What a reader found: the reply with the calls cut out (prose kept), and the calls in order. */
export interface ReadToolCalls {
  readonly content: string;
  readonly calls: readonly TextCall[];
}

/** The text a user should see of a reply with no call, its family's markup taken away. */
export interface VisibleText {
  readonly content: string;
  /** The reasoning the markup set apart (GPT-OSS's analysis channel, Command R's thinking), if any. */
  readonly reasoning?: string | undefined;
}

/**
 * How one model family writes tool calls into its reply text. `read` looks at a complete reply; `markers` are the
 * strings that can start a call in this format (a streamed reply is held back from a marker on).
 */
export interface ToolCallFormat {
  /** Stable name (`qwen3-coder`, `glm-4.5`, `deepseek-v3.1`, …). */
  readonly name: string;
  /** Strings that start a call; a reply without any of them holds no call in this format. */
  readonly markers: readonly string[];
  /**
   * The calls in `reply`, or `undefined` when it holds none that names an offered tool. Never throws; linear time
   * in the reply's length (a fuzz test checks both); a block that does not parse stays in `content`.
   */
  read(reply: string, tools: OfferedToolSet): ReadToolCalls | undefined;
  /**
   * The text the user should see of a reply that holds no call, when the reply is written in this family's
   * markup (channels, response tokens, message ends); `undefined` for a reply without it (left as it is). When a
   * reply up to where its visible text begins gives empty content, the whole reply's content is the text after
   * that point (the stream passes it on as it comes). Never throws; linear time.
   */
  visibleText?(reply: string): VisibleText | undefined;
}
