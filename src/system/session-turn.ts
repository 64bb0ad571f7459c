import {
  AgentError,
  type AgentResult,
  type AgentStreamEvent,
  type Clock,
  type Message,
  type Redactor,
  type TokenUsage,
  ZERO_USAGE,
} from '../core/index.js';
import type {
  HistoryReport,
  NewSessionTurn,
  PreparedHistory,
  SessionInfo,
  SessionStore,
  SessionTurn,
  SessionTurnStatus,
} from '../sessions/index.js';
import { agentRunOptions, type PreparedRun, type RunRequest } from './system-run.js';

/** What a turn's history preparation reports: how much of the session went to the model, and how. */
export type SessionHistoryReport = HistoryReport;

/** Builds the history a run of `sessionId` sends, fitted to the prepared run's model. */
export type HistoryPreparer = (
  sessionId: string,
  run: PreparedRun,
  query: string,
  request: RunRequest,
) => Promise<PreparedHistory>;

/** What a run in a session needs from the system. */
export interface SessionTurnDeps {
  readonly store: SessionStore;
  readonly prepare: (query: string, request: RunRequest) => Promise<PreparedRun>;
  readonly history: HistoryPreparer;
  /** Told about each completed turn (to calibrate token counting on what the engine reported). */
  readonly learn?: (run: PreparedRun, report: HistoryReport, result: AgentResult) => void;
  readonly clock: Clock;
  readonly redact: Redactor;
}

/** A finished run in a session: the agent's result, the stored turn, and the history report. */
export interface SessionRunResult {
  readonly result: AgentResult;
  readonly agentName: string;
  readonly engineKey: string;
  readonly model: string;
  readonly session: SessionInfo;
  readonly turn: SessionTurn;
  readonly history: SessionHistoryReport;
}

/**
 * Runs `query` as the next turn of a session: its fitted history goes before the input, and the turn (the
 * question, the run's messages with tool calls paired, agent, model, engine, usage) is stored once the run ends;
 * a failed or cancelled run stores what it did (status `failed`/`cancelled`) and the error is rethrown.
 */
export async function runSessionTurn(
  deps: SessionTurnDeps,
  sessionId: string,
  query: string,
  request: RunRequest,
): Promise<SessionRunResult> {
  const started = deps.clock.nowMs();
  const { run, history } = await prepareSessionRun(deps, sessionId, query, request);
  let result: AgentResult;
  try {
    result = await run.agent.run(query, run.context, agentRunOptions(request));
  } catch (error) {
    await storeFailedTurn(deps, sessionId, query, run, error, started);
    throw error;
  }
  deps.learn?.(run, history.report, result);
  const turn = await storeTurn(deps, sessionId, query, run, result, 'completed', started);
  return finished(deps, sessionId, run, result, turn, history.report);
}

/** Like `runSessionTurn`, yielding the agent's events; the turn is stored before the `result` event is yielded. */
export async function* streamSessionTurn(
  deps: SessionTurnDeps,
  sessionId: string,
  query: string,
  request: RunRequest,
): AsyncGenerator<AgentStreamEvent> {
  const started = deps.clock.nowMs();
  const { run, history } = await prepareSessionRun(deps, sessionId, query, request);
  try {
    const events: AsyncIterable<AgentStreamEvent> =
      run.agent.stream?.(query, run.context, agentRunOptions(request)) ??
      runAsStream(run, query, request);
    for await (const event of events) {
      if (event.type === 'result') {
        deps.learn?.(run, history.report, event.result);
        await storeTurn(deps, sessionId, query, run, event.result, 'completed', started);
      }
      yield event;
    }
  } catch (error) {
    await storeFailedTurn(deps, sessionId, query, run, error, started);
    throw error;
  }
}

async function* runAsStream(
  run: PreparedRun,
  query: string,
  request: RunRequest,
): AsyncGenerator<AgentStreamEvent> {
  yield {
    type: 'result',
    result: await run.agent.run(query, run.context, agentRunOptions(request)),
  };
}

async function prepareSessionRun(
  deps: SessionTurnDeps,
  sessionId: string,
  query: string,
  request: RunRequest,
): Promise<{ run: PreparedRun; history: PreparedHistory }> {
  const run = await deps.prepare(query, request);
  const history = await deps.history(sessionId, run, query, request);
  for (const message of history.messages) run.context.conversation.add(message);
  return { run, history };
}

async function finished(
  deps: SessionTurnDeps,
  sessionId: string,
  run: PreparedRun,
  result: AgentResult,
  turn: SessionTurn,
  history: SessionHistoryReport,
): Promise<SessionRunResult> {
  const session = await deps.store.find(sessionId);
  return {
    result,
    agentName: run.agentName,
    engineKey: run.engine.key,
    model: run.engine.model,
    // The session was there a moment ago; another process may have removed it since.
    session: session ?? removedSession(sessionId, turn),
    turn,
    history,
  };
}

function removedSession(id: string, turn: SessionTurn): SessionInfo {
  return {
    id,
    name: undefined,
    title: '',
    turnCount: turn.seq,
    createdMs: turn.startedMs,
    updatedMs: turn.endedMs,
    summary: undefined,
  };
}

async function storeFailedTurn(
  deps: SessionTurnDeps,
  sessionId: string,
  query: string,
  run: PreparedRun,
  error: unknown,
  started: number,
): Promise<void> {
  const partial = error instanceof AgentError ? error.partialResult : undefined;
  const status: SessionTurnStatus =
    error instanceof AgentError && error.code === 'agent_cancelled' ? 'cancelled' : 'failed';
  // The error that ended the run matters more than a failure to record it.
  await storeTurn(deps, sessionId, query, run, partial, status, started).catch(() => undefined);
}

function storeTurn(
  deps: SessionTurnDeps,
  sessionId: string,
  query: string,
  run: PreparedRun,
  result: AgentResult | undefined,
  status: SessionTurnStatus,
  started: number,
): Promise<SessionTurn> {
  const turn: NewSessionTurn = {
    messages: turnMessages(query, result, status).map((message) => redacted(message, deps.redact)),
    agent: run.agentName,
    model: run.engine.model,
    engine: run.engine.key,
    usage: usageOf(result),
    status,
    startedMs: started,
    endedMs: Math.max(started, deps.clock.nowMs()),
  };
  return deps.store.appendTurn(sessionId, turn);
}

/** The user's question, then the run's messages (or its answer text, for agents that report none). */
function turnMessages(
  query: string,
  result: AgentResult | undefined,
  status: SessionTurnStatus,
): Message[] {
  const question: Message = { role: 'user', content: query };
  if (result === undefined) return [question];
  const added = result.messages;
  if (added !== undefined && added.length > 0) return [question, ...added];
  if (status !== 'completed' && result.content === '') return [question];
  return [question, { role: 'assistant', content: result.content }];
}

function redacted(message: Message, redact: Redactor): Message {
  const toolCalls = message.toolCalls?.map((call) => ({
    ...call,
    arguments: redact(call.arguments),
  }));
  return {
    ...message,
    content: redact(message.content),
    ...(toolCalls === undefined ? {} : { toolCalls }),
  };
}

function usageOf(result: AgentResult | undefined): TokenUsage {
  const usage = result?.metadata.usage as Partial<TokenUsage> | undefined;
  if (usage === undefined || typeof usage !== 'object') return ZERO_USAGE;
  const number = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? value : 0;
  return {
    promptTokens: number(usage.promptTokens),
    completionTokens: number(usage.completionTokens),
    totalTokens: number(usage.totalTokens),
  };
}
