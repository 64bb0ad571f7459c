import { EngineError } from '../../core/index.js';
import { type HttpErrorAdvice, withAdvice } from '../http/http-error-advice.js';

/** What an OpenAI-compatible engine knows when it explains a refused request. */
export interface OpenAIErrorContext {
  /** The model asked for; absent for requests that name none (the model list). */
  readonly model?: string;
  /** Whether an API key was sent. */
  readonly sentApiKey: boolean;
  /** The path of the request, named when the server has no such endpoint. */
  readonly path: string;
}

/**
 * Turns the HTTP answers of an OpenAI-compatible server that have a known way out into errors that say it:
 * 401/403 (the API key is missing or wrong, and how to set it) and 404 (the model is unknown: list the models;
 * or there is no such endpoint: check the address). The server's own words are kept (already redacted). Returns
 * `undefined` for any other error, which stays as it is.
 */
export function describeOpenAIHttpError(
  error: unknown,
  context: OpenAIErrorContext,
): EngineError | undefined {
  if (!(error instanceof EngineError) || error.code !== 'engine_http_error') return undefined;
  const words = serverWords(error);
  const advice =
    error.status === 401 || error.status === 403
      ? authAdvice(words, context)
      : error.status === 404
        ? notFoundAdvice(words, context)
        : undefined;
  if (advice === undefined) return undefined;
  return withAdvice(error, advice);
}

function authAdvice(words: string, context: OpenAIErrorContext): HttpErrorAdvice {
  const what = context.sentApiKey
    ? 'the server refused the API key that was sent (it is wrong, or lacks access)'
    : 'the server wants an API key and none was sent';
  return {
    code: 'engine_http_error',
    detail:
      `${what} (${words}). Set the key with \`api_key\` under [engine.openai] in the config or the ` +
      'OPENAI_API_KEY environment variable (SDK: the apiKey option); it is sent only to the address configured ' +
      'with it ([engine.openai] host, OPENAI_BASE_URL, --base-url or the baseUrl option)',
  };
}

function notFoundAdvice(words: string, context: OpenAIErrorContext): HttpErrorAdvice {
  if (context.model !== undefined && /model/i.test(words)) {
    return {
      code: 'engine_model_error',
      detail:
        `the server does not know the model '${context.model}' (${words}); see the models it serves with ` +
        "`jarvis models` (SDK: the engine's listModels()) and pick one of them",
    };
  }
  return {
    code: 'engine_http_error',
    detail:
      `the server has no ${context.path} endpoint (${words}); check that the address points at an ` +
      'OpenAI-compatible server, for example http://127.0.0.1:8000/v1',
  };
}

/** The server's part of an HTTP error message: `HTTP 404: The model 'x' does not exist`. */
function serverWords(error: EngineError): string {
  const start = error.message.indexOf(`HTTP ${error.status}`);
  return start === -1 ? `HTTP ${error.status}` : error.message.slice(start);
}
