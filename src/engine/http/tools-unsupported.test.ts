import { describe, expect, it } from 'vitest';
import { EngineError, type EngineErrorCode, JarvisError } from '../../core/index.js';
import { describeOllamaHttpError } from '../ollama/ollama-errors.js';
import { describeOpenAIHttpError } from '../openai/openai-errors.js';
import { isToolsUnsupportedError } from './tools-unsupported.js';

function httpError(status: number, words: string, code: EngineErrorCode = 'engine_http_error') {
  return new EngineError({
    code,
    engineId: 'test',
    address: 'http://127.0.0.1:8080/v1/chat/completions',
    detail: `HTTP ${status}: ${words}`,
    status,
  });
}

const REFUSALS: readonly (readonly [string, number, string])[] = [
  ['Ollama', 400, 'registry.ollama.ai/library/gemma3:270m does not support tools'],
  [
    'Ollama (Hugging Face model)',
    400,
    'hf.co/empower-dev/llama3-functions-gguf does not support tools',
  ],
  ['llama-server without --jinja', 500, 'tools param requires --jinja flag'],
  ['llama-server without --jinja (400 builds)', 400, 'tools param requires --jinja flag'],
  ['older llama-server', 500, 'Unsupported param: tools'],
  ['older llama-server, tool_choice', 500, 'Unsupported param: tool_choice'],
  ['older llama-server, streamed', 500, 'Cannot use tools with stream'],
  [
    'vLLM without tool parsing',
    400,
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
  ],
  ['OpenRouter', 404, 'No endpoints found that support tool use. Try disabling "tools".'],
];

const OTHER_ERRORS: readonly (readonly [number, string])[] = [
  [400, 'the request exceeds the available context size, try increasing it'],
  [400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."],
  [400, 'registry.ollama.ai/library/llama3.2 does not support thinking'],
  [400, "'messages' must be a non-empty array"],
  [400, 'Invalid tool_choice: the named function get_weather is not among the tools'],
  [400, "tool 'get_weather' has an invalid JSON Schema in 'parameters'"],
  [404, "model 'qwen3:8b' not found"],
  [500, 'Unknown argument ensure_ascii for function tojson at row 11, column 37'],
  [500, 'Cannot have 2 or more assistant messages at the end of the list.'],
  [503, 'Loading model'],
];

describe('isToolsUnsupportedError', () => {
  it.each(REFUSALS)('recognises %s (HTTP %i)', (_server, status, words) => {
    expect(isToolsUnsupportedError(httpError(status, words))).toBe(true);
  });

  it("recognises Ollama's refusal after it became an engine_model_error with advice", () => {
    const raw = httpError(400, 'registry.ollama.ai/library/gemma3:270m does not support tools');
    const described = describeOllamaHttpError(raw, 'gemma3:270m');
    expect(described?.code).toBe('engine_model_error');
    expect(isToolsUnsupportedError(described)).toBe(true);
  });

  it("recognises OpenRouter's 404 after the OpenAI engine added its advice", () => {
    const raw = httpError(404, 'No endpoints found that support tool use');
    const described = describeOpenAIHttpError(raw, {
      model: 'x/model',
      sentApiKey: true,
      path: '/chat',
    });
    expect(described).toBeInstanceOf(EngineError);
    expect(described).not.toBe(raw);
    expect(isToolsUnsupportedError(described)).toBe(true);
  });

  it('finds the words in a cause when the message was rewritten', () => {
    const cause = httpError(400, 'm does not support tools');
    const wrapped = new EngineError({
      code: 'engine_model_error',
      engineId: 'test',
      address: 'x',
      detail: 'the model cannot be used this way',
      status: 400,
      cause,
    });
    expect(isToolsUnsupportedError(wrapped)).toBe(true);
  });

  it.each(OTHER_ERRORS)('is false for other errors (HTTP %i: %s)', (status, words) => {
    expect(isToolsUnsupportedError(httpError(status, words))).toBe(false);
    expect(isToolsUnsupportedError(httpError(status, words, 'engine_model_error'))).toBe(false);
  });

  it('is false for the right words under another code or status, and for anything not an EngineError', () => {
    const words = 'tools param requires --jinja flag';
    expect(isToolsUnsupportedError(httpError(500, words, 'engine_timeout'))).toBe(false);
    expect(isToolsUnsupportedError(httpError(500, words, 'engine_protocol_error'))).toBe(false);
    expect(isToolsUnsupportedError(httpError(200, words))).toBe(false);
    expect(isToolsUnsupportedError(new Error(words))).toBe(false);
    expect(
      isToolsUnsupportedError(new JarvisError({ code: 'invalid_argument', message: words })),
    ).toBe(false);
    expect(isToolsUnsupportedError(words)).toBe(false);
    expect(isToolsUnsupportedError(undefined)).toBe(false);
  });
});
