import {
  type AgentResult,
  type AgentStreamEvent,
  EngineError,
  JarvisError,
  type Tool,
} from '../core/index.js';
import type { JarvisSystem, PreparedRun } from '../system/index.js';
import type { ChatRequest } from './chat-request.js';
import { ApiError } from './openai-error.js';

/** What the server runs every request with: its configured agent and tools (never the client's). */
export interface ChatRunSettings {
  /** Agent registry key; default: the orchestrator when tools are given, else the configured default. */
  readonly agent?: string | undefined;
  /** Tool names the agent may call (run on the server). */
  readonly tools?: readonly (string | Tool)[] | undefined;
}

/**
 * Prepares the agent of one request: the server's agent and tools, the request's sampling settings, and the
 * request's earlier messages as the context conversation (after memory's context message, if any).
 */
export async function prepareChat(
  system: JarvisSystem,
  request: ChatRequest,
  settings: ChatRunSettings,
  signal: AbortSignal,
): Promise<PreparedRun> {
  const run = await system.prepare(request.input, {
    agent: settings.agent,
    tools: settings.tools,
    temperature: request.temperature,
    maxTokens: request.maxTokens,
    signal,
  });
  for (const message of request.history) run.context.conversation.add(message);
  return run;
}

/** Runs a prepared request to its result. */
export function runChat(
  run: PreparedRun,
  request: ChatRequest,
  signal: AbortSignal,
): Promise<AgentResult> {
  return run.agent.run(request.input, run.context, { signal });
}

/** Streams a prepared request's events; an agent without streaming yields just its result. */
export async function* streamChat(
  run: PreparedRun,
  request: ChatRequest,
  signal: AbortSignal,
): AsyncGenerator<AgentStreamEvent> {
  if (run.agent.stream !== undefined) {
    yield* run.agent.stream(request.input, run.context, { signal });
    return;
  }
  yield { type: 'result', result: await runChat(run, request, signal) };
}

/**
 * The API error a failed run answers with. Engine failures say only which kind (the engine's address and
 * messages stay in the server's log); configuration problems (unknown tool or agent) are 500s with their
 * (redacted) message, since the operator has to fix them, not the client.
 */
export function runFailure(error: unknown, redact: (text: string) => string): ApiError {
  if (error instanceof ApiError) return error;
  const code = codeOf(error);
  if (
    error instanceof EngineError ||
    code.startsWith('engine_') ||
    code === 'agent_engine_failed'
  ) {
    return new ApiError({
      status: 502,
      type: 'server_error',
      code: 'engine_error',
      message: `The model engine failed (${code}); the server log has the details`,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError({
    status: 500,
    type: 'server_error',
    code: error instanceof JarvisError ? error.code : 'internal_error',
    message: redact(message),
  });
}

function codeOf(error: unknown): string {
  if (error instanceof JarvisError) {
    const cause = error.cause;
    if (cause instanceof JarvisError && cause.code.startsWith('engine_')) return cause.code;
    return error.code;
  }
  return 'internal_error';
}
