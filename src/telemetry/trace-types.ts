/** What a span of a run's trace stands for. */
export type TraceSpanKind = 'agent' | 'turn' | 'model' | 'tool';

/** How a span ended: `unfinished` when its run ended (or was stored) before the span's own end event. */
export type TraceSpanStatus = 'ok' | 'error' | 'unfinished';

/** A span attribute value (texts are redacted and shortened before they are kept). */
export type TraceAttributeValue = string | number | boolean;

/**
 * One span of a run's trace: the run itself (`agent`, also for a sub-agent run inside a tool call), a turn,
 * a model call or a tool call, with its parent and its wall-clock start and end.
 */
export interface TraceSpan {
  readonly spanId: string;
  /** The enclosing span; absent for the run's own agent span. */
  readonly parentSpanId?: string;
  readonly kind: TraceSpanKind;
  /** `invoke_agent <agent>`, `turn <n>`, `chat <model>` or `execute_tool <tool>`. */
  readonly name: string;
  /** Milliseconds since the Unix epoch. */
  readonly startedMs: number;
  /** Milliseconds since the Unix epoch (the run's end for an unfinished span). */
  readonly endedMs: number;
  readonly status: TraceSpanStatus;
  /**
   * camelCase facts of the span: agent (`agent`, `inputLength`, `turns`, `error`, `errorCode`), model
   * (`model`, `engine`, `turn`, `promptTokens`, `completionTokens`, `latencySeconds`, `ttftSeconds`,
   * `finishReason`, `costUsd`, `error`), tool (`toolName`, `callId`, `arguments`, `result`, `success`,
   * `latencySeconds`, `errorCode`).
   */
  readonly attributes: Readonly<Record<string, TraceAttributeValue>>;
}

/** A span as it opens: no end or status yet. */
export type StartedTraceSpan = Omit<TraceSpan, 'endedMs' | 'status'>;

/** A span with its children, oldest first. */
export interface TraceSpanNode extends TraceSpan {
  readonly children: readonly TraceSpanNode[];
}

/** One run as listed: who ran, with which model, how long, how many turns and tokens, how it ended. */
export interface TraceRunSummary {
  /** The run id (32 hex digits). */
  readonly id: string;
  readonly startedMs: number;
  readonly endedMs: number;
  /** Registry key of the agent that ran (`simple`, `orchestrator`, …). */
  readonly agent: string;
  /** The model of the run's first model call ('' when it made none). */
  readonly model: string;
  readonly inputLength: number;
  readonly turns: number;
  readonly modelCalls: number;
  readonly toolCalls: number;
  /** Prompt and completion tokens of every model call in the run, sub-agents included. */
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly latencySeconds: number;
  readonly status: 'ok' | 'error';
  /** What went wrong, for failed runs. */
  readonly error?: string;
}

/** A stored run with its spans as a tree (the run's agent span is the one root). */
export interface TraceRun extends TraceRunSummary {
  readonly spans: readonly TraceSpanNode[];
  /** Spans left out because the run had more than the tracer keeps per run. */
  readonly droppedSpans: number;
}

/** A finished run as a tracer hands it to its sinks: the summary and its spans in start order. */
export interface FinishedTrace {
  readonly summary: TraceRunSummary;
  readonly spans: readonly TraceSpan[];
  readonly droppedSpans: number;
}

/**
 * Receives a tracer's spans as they happen: `spanStarted` when a span opens (in the publisher's synchronous
 * call, so ambient context such as OpenTelemetry's active span is the caller's), `spanEnded` when it closes,
 * `runEnded` once per top-level run with its whole trace. A sink that throws never reaches the agent.
 */
export interface TraceSink {
  spanStarted?(span: StartedTraceSpan, runId: string): void;
  spanEnded?(span: TraceSpan, runId: string): void;
  runEnded?(trace: FinishedTrace): void;
}
