import { EngineError } from '../../core/index.js';

/**
 * The words of servers that refuse a request because it carries `tools` (the request itself is fine without
 * them). Each names tools and the server's own reason, so a 400 about anything else never matches:
 * - Ollama, a model whose template has no tool section (400): `registry.ollama.ai/library/x does not support tools`;
 * - llama.cpp's llama-server (and llamafile, which runs it) started without `--jinja` (500, 400 in some builds):
 *   `tools param requires --jinja flag`; older builds: `Unsupported param: tools` / `Unsupported param:
 *   tool_choice`, and `Cannot use tools with stream` for a streamed request;
 * - vLLM started without tool parsing (400): `"auto" tool choice requires --enable-auto-tool-choice and
 *   --tool-call-parser to be set`;
 * - OpenRouter, no provider of the model takes tools (404): `No endpoints found that support tool use`.
 * LM Studio takes `tools` for every model (it prompts models not trained for tools in its own default format),
 * so it has no such answer.
 */
const REFUSALS: readonly RegExp[] = [
  /\bdoes not support tools\b/i,
  /\btools param requires --jinja\b/i,
  /\bunsupported param: tool(?:s|_choice)\b/i,
  /\bcannot use tools with stream\b/i,
  /\btool choice requires --enable-auto-tool-choice\b/i,
  /--enable-auto-tool-choice and --tool-call-parser/i,
  /\bno endpoints found that support tool use\b/i,
];

const CODES: ReadonlySet<string> = new Set(['engine_http_error', 'engine_model_error']);

/** How many causes deep the server's words are looked for (advice wraps the HTTP error once). */
const MAX_CAUSES = 3;

/**
 * Whether `error` is a server's answer that it cannot take the request's `tools` (Ollama's model without tool
 * support, llama-server without `--jinja`, vLLM without `--enable-auto-tool-choice`, OpenRouter with no
 * tool-capable provider): an `EngineError` with code `engine_http_error` or `engine_model_error`, an HTTP status
 * of 400 or more, and those servers' words in its message (or its causes'). Such a request can be sent again
 * without `tools`, with the tools described in the prompt instead; any other error is not such an answer.
 */
export function isToolsUnsupportedError(error: unknown): boolean {
  if (!(error instanceof EngineError) || !CODES.has(error.code)) return false;
  if (error.status !== undefined && error.status < 400) return false;
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSES && current instanceof Error; depth += 1) {
    const message = current.message;
    if (REFUSALS.some((refusal) => refusal.test(message))) return true;
    current = current.cause;
  }
  return false;
}
