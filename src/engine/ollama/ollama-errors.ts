import { EngineError } from '../../core/index.js';
import { type HttpErrorAdvice, withAdvice } from '../http/http-error-advice.js';

/**
 * Turns Ollama's answers about the model into errors that say what to do: HTTP 404 naming the model (it is not
 * pulled) and HTTP 400 "does not support tools / thinking" become `engine_model_error`s naming the way out
 * (`ollama pull <model>`, …); a 404 that names no model (no such endpoint) stays an `engine_http_error` that
 * says the host may not be Ollama. Returns `undefined` for any other error, which stays as it is.
 */
export function describeOllamaHttpError(error: unknown, model: string): EngineError | undefined {
  if (!(error instanceof EngineError) || error.code !== 'engine_http_error') return undefined;
  const advice = adviceFor(error.status, serverWords(error), model);
  if (advice === undefined) return undefined;
  return withAdvice(error, advice);
}

function adviceFor(
  status: number | undefined,
  words: string,
  model: string,
): HttpErrorAdvice | undefined {
  if (status === 404 && !/model/i.test(words)) {
    return {
      code: 'engine_http_error',
      detail: `the server has no Ollama chat endpoint (${words}); check that the host points at Ollama (default 127.0.0.1:11434), or use the engine for OpenAI-compatible servers`,
    };
  }
  if (status === 404) {
    return {
      code: 'engine_model_error',
      detail: `the model '${model}' is not available on this Ollama server (${words}); download it with \`ollama pull ${model}\`, or pick an installed one from \`ollama list\``,
    };
  }
  if (status === 400 && /does not support tools/i.test(words)) {
    return {
      code: 'engine_model_error',
      detail: `the model '${model}' cannot call tools (${words}); pick a model with tool support (ollama.com/search?c=tools), or an agent that asks for tools in plain text (native_react)`,
    };
  }
  if (status === 400 && /does not support thinking/i.test(words)) {
    return {
      code: 'engine_model_error',
      detail: `the model '${model}' has no thinking mode (${words}); leave the engine's \`think\` option unset for it`,
    };
  }
  return undefined;
}

/** The server's part of an HTTP error message: `HTTP 404: model 'x' not found`. */
function serverWords(error: EngineError): string {
  const start = error.message.indexOf(`HTTP ${error.status}`);
  return start === -1 ? `HTTP ${error.status}` : error.message.slice(start);
}
