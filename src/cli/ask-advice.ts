import { JarvisError } from '../core/index.js';
import { isAbort } from './cli-error.js';

/** What to do when the engine's server did not answer (added under the engine's own error). */
export const ENGINE_ADVICE = [
  "The engine's server did not answer. Start it (Ollama: `ollama serve`, then `ollama pull qwen3:8b`),",
  'or point at a running server: --engine <key> --base-url <url> (any OpenAI-compatible server:',
  '--engine openai --base-url http://127.0.0.1:8000/v1), or run a model in-process: `jarvis models pull',
  'qwen3-1.7b` then --engine embedded. `jarvis engines` shows which engines answer.',
].join('\n');

/**
 * Adds advice to an error whose cause is an unreachable engine (connection refused, host not found); every other
 * error, and cancellation, is returned as it is.
 */
export function withAdvice(error: unknown): unknown {
  if (isAbort(error) || !hasUnreachableEngine(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new JarvisError({
    code: 'engine_unavailable',
    message: `${message}\n${ENGINE_ADVICE}`,
    cause: error,
  });
}

function hasUnreachableEngine(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth += 1) {
    if (JarvisError.isInstance(current) && current.code === 'engine_unavailable') return true;
    current = (current as { readonly cause?: unknown }).cause;
  }
  return false;
}
