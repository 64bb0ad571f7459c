import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type AgentTurnEndPayload,
  type AgentTurnStartPayload,
  createRedactor,
  type EventBus,
  type InferenceEndPayload,
  type InferenceStartPayload,
  type JarvisEvent,
  type Redactor,
  type TelemetryRecordPayload,
  type ToolCallEndPayload,
  type ToolCallStartPayload,
} from '../core/index.js';
import { type OpenSpan, TraceBuilder } from './trace-builder.js';
import { summarizeTrace } from './trace-summary-of.js';
import { DEFAULT_TRACE_TEXT_CHARS, traceText } from './trace-text.js';
import type { TraceSink } from './trace-types.js';

/** Options of a `RunTracer`. */
export interface RunTracerOptions {
  /** The bus whose agent, inference, tool and telemetry events make the traces. */
  readonly bus: EventBus;
  /** Where spans and finished runs go (the telemetry store's sink, the OpenTelemetry bridge, …). */
  readonly sinks: readonly TraceSink[];
  /** Applied to every kept text (configured keys); core's secret-shape redaction runs after it in any case. */
  readonly redact?: Redactor;
  /** Characters kept of each tool argument, result and error (default 2000). */
  readonly maxTextChars?: number;
  /** Spans kept per run; later ones are counted as dropped (default 2000). */
  readonly maxSpansPerRun?: number;
  /** Run ids (default 32 random hex digits) and span ids (default 16). */
  readonly ids?: { readonly run: () => string; readonly span: () => string };
}

/** One agent run being recorded (a sub-agent's run inside a tool call shares its parent's trace). */
interface RunState {
  readonly trace: TraceBuilder;
  readonly parent: RunState | undefined;
  readonly agentSpan: OpenSpan;
  open: boolean;
  turn: OpenSpan | undefined;
  turnNumber: number;
  model: OpenSpan | undefined;
  readonly tools: Map<string, OpenSpan>;
}

const redactShapes = createRedactor();
/**
 * Random bytes for trace and span ids, drawn from one buffer refilled 4 KiB at a time: one call into the
 * system's random source per ~500 ids instead of one per id (`randomBytes` per id was ~5% of a busy server's
 * CPU; Node's `randomUUID` batches the same way). The bytes are as random; only the calls are fewer. The global
 * Web Crypto fills it, so importing the package does not load `node:crypto`.
 */
const randomPool = Buffer.allocUnsafe(4096);
let randomPoolOffset = randomPool.length;

function randomHex(bytes: number): string {
  if (randomPoolOffset + bytes > randomPool.length) {
    crypto.getRandomValues(randomPool);
    randomPoolOffset = 0;
  }
  const hex = randomPool.toString('hex', randomPoolOffset, randomPoolOffset + bytes);
  randomPoolOffset += bytes;
  return hex;
}

const hexId = (bytes: number) => () => randomHex(bytes);

/**
 * Makes a trace of every agent run from the bus: a span for the run, each turn, each model call and each
 * tool call, with parent links and times, handed to its sinks. Events are matched to their run by the
 * asynchronous context the run started in, so concurrent runs on one bus keep apart, and an agent started
 * inside a tool call becomes a child of that call.
 */
export class RunTracer {
  readonly #options: RunTracerOptions;
  readonly #redact: Redactor;
  readonly #maxTextChars: number;
  readonly #context = new AsyncLocalStorage<RunState>();
  readonly #open: RunState[] = [];
  readonly #unsubscribe: (() => void)[] = [];
  #sinkErrors = 0;

  /** Subscribes to `options.bus` at once; `close()` unsubscribes. */
  constructor(options: RunTracerOptions) {
    this.#options = options;
    const redact = options.redact;
    this.#redact = redact === undefined ? redactShapes : (text) => redactShapes(redact(text));
    this.#maxTextChars = options.maxTextChars ?? DEFAULT_TRACE_TEXT_CHARS;
    const bus = options.bus;
    this.#unsubscribe.push(
      bus.subscribe('agent_turn_start', (event) => this.#agentStart(event)),
      bus.subscribe('agent_turn_end', (event) => this.#agentEnd(event)),
      bus.subscribe('inference_start', (event) => this.#inferenceStart(event)),
      bus.subscribe('inference_end', (event) => this.#inferenceEnd(event)),
      bus.subscribe('telemetry_record', (event) => this.#telemetryRecord(event)),
      bus.subscribe('tool_call_start', (event) => this.#toolStart(event)),
      bus.subscribe('tool_call_end', (event) => this.#toolEnd(event)),
    );
  }

  /** Runs being recorded now (top-level and sub-agent runs). */
  get openRuns(): number {
    return this.#open.length;
  }

  /** How many times a sink threw (the recording went on). */
  get sinkErrors(): number {
    return this.#sinkErrors;
  }

  /** Stops listening; runs still open are not handed on. */
  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    this.#open.length = 0;
  }

  #agentStart(event: JarvisEvent<'agent_turn_start'>): void {
    const data: AgentTurnStartPayload = event.data;
    const outer = this.#current(false);
    const toolSpan = outer === undefined ? undefined : lastOpenTool(outer);
    const parent = toolSpan === undefined ? undefined : outer;
    const trace = parent?.trace ?? this.#newTrace(callerRunId(data.runId));
    const agentSpan = trace.open({
      kind: 'agent',
      name: `invoke_agent ${data.agent}`,
      parent: toolSpan,
      startedMs: event.timestampMs,
      attributes: { agent: data.agent, inputLength: String(data.input ?? '').length },
    });
    const run: RunState = {
      trace,
      parent,
      agentSpan,
      open: true,
      turn: undefined,
      turnNumber: 0,
      model: undefined,
      tools: new Map(),
    };
    this.#open.push(run);
    // The rest of the run (its awaits included) carries this run as its context.
    this.#context.enterWith(run);
  }

  #agentEnd(event: JarvisEvent<'agent_turn_end'>): void {
    const run = this.#current();
    if (run === undefined) return;
    const data: AgentTurnEndPayload = event.data;
    const at = event.timestampMs;
    if (run.model !== undefined) run.trace.close(run.model, at, 'unfinished');
    for (const tool of run.tools.values()) run.trace.close(tool, at, 'unfinished');
    if (run.turn !== undefined) run.trace.close(run.turn, at, 'ok');
    const failed = data.error !== undefined || data.errorCode !== undefined;
    run.trace.close(run.agentSpan, at, failed ? 'error' : 'ok', {
      turns: data.turns ?? run.turnNumber,
      error: data.error === undefined ? undefined : this.#text(data.error),
      errorCode: data.errorCode,
      maxTurnsExceeded: data.maxTurnsExceeded,
      loopDetected: data.loopDetected,
    });
    run.open = false;
    this.#open.splice(this.#open.indexOf(run), 1);
    if (run.parent === undefined) this.#finish(run.trace, at);
  }

  #inferenceStart(event: JarvisEvent<'inference_start'>): void {
    const run = this.#current();
    if (run === undefined) return;
    const data: InferenceStartPayload = event.data;
    const turn = this.#turn(run, data.turn, event.timestampMs);
    if (run.model !== undefined) run.trace.close(run.model, event.timestampMs, 'unfinished');
    run.model = run.trace.open({
      kind: 'model',
      name: `chat ${data.model}`,
      parent: turn,
      startedMs: event.timestampMs,
      attributes: { model: data.model, engine: data.engine, turn: data.turn },
    });
  }

  #inferenceEnd(event: JarvisEvent<'inference_end'>): void {
    const run = this.#current();
    const span = run?.model;
    if (run === undefined || span === undefined) return;
    const data: InferenceEndPayload = event.data;
    run.trace.close(span, event.timestampMs, data.success ? 'ok' : 'error', {
      promptTokens: data.usage.promptTokens,
      completionTokens: data.usage.completionTokens,
      latencySeconds: data.latencySeconds,
      ttftSeconds: span.attributes.ttftSeconds ?? data.ttftSeconds,
      error: data.error === undefined ? undefined : this.#text(data.error),
    });
    run.model = undefined;
  }

  /** The engine's own measurement: cost and finish reason for the open model call, or a call of its own. */
  #telemetryRecord(event: JarvisEvent<'telemetry_record'>): void {
    const run = this.#current();
    if (run === undefined) return;
    const { record }: TelemetryRecordPayload = event.data;
    const facts = {
      costUsd: record.costUsd,
      ...(record.finishReason === undefined ? {} : { finishReason: record.finishReason }),
    };
    if (run.model !== undefined) {
      Object.assign(run.model.attributes, facts);
      return;
    }
    // A model call made outside the agent's loop (e.g. by a tool): a span of its own.
    const span = run.trace.open({
      kind: 'model',
      name: `chat ${record.model}`,
      parent: lastOpenTool(run) ?? run.turn ?? run.agentSpan,
      startedMs: record.timestampMs,
      attributes: { model: record.model, engine: record.engine, ...facts },
    });
    run.trace.close(
      span,
      record.timestampMs + record.latencySeconds * 1000,
      record.success ? 'ok' : 'error',
      {
        promptTokens: record.promptTokens,
        completionTokens: record.completionTokens,
        latencySeconds: record.latencySeconds,
        ttftSeconds: record.ttftSeconds,
        error: record.error === undefined ? undefined : this.#text(record.error),
      },
    );
  }

  #toolStart(event: JarvisEvent<'tool_call_start'>): void {
    const run = this.#current();
    if (run === undefined) return;
    const data: ToolCallStartPayload = event.data;
    const span = run.trace.open({
      kind: 'tool',
      name: `execute_tool ${data.toolName}`,
      parent: run.turn ?? run.agentSpan,
      startedMs: event.timestampMs,
      attributes: {
        toolName: data.toolName,
        callId: data.callId,
        arguments: this.#text(data.arguments),
      },
    });
    run.tools.set(data.callId, span);
  }

  #toolEnd(event: JarvisEvent<'tool_call_end'>): void {
    const run = this.#current();
    const data: ToolCallEndPayload = event.data;
    const span = run?.tools.get(data.callId);
    if (run === undefined || span === undefined) return;
    run.tools.delete(data.callId);
    run.trace.close(span, event.timestampMs, data.success ? 'ok' : 'error', {
      success: data.success,
      latencySeconds: data.latencySeconds,
      errorCode: data.errorCode,
      result: this.#text(data.result.content),
    });
  }

  /** The turn span for model turn `turn`, opening it (and closing the previous one) when it is new. */
  #turn(run: RunState, turn: number, atMs: number): OpenSpan {
    if (run.turn !== undefined && run.turnNumber === turn) return run.turn;
    if (run.turn !== undefined) run.trace.close(run.turn, atMs, 'ok');
    run.turnNumber = turn;
    run.turn = run.trace.open({
      kind: 'turn',
      name: `turn ${turn}`,
      parent: run.agentSpan,
      startedMs: atMs,
      attributes: { turn },
    });
    return run.turn;
  }

  /**
   * The run an event belongs to: its context's run, or the nearest enclosing run still open; with no run in
   * the context, the latest open run when `fallback` is on.
   */
  #current(fallback = true): RunState | undefined {
    let run = this.#context.getStore();
    if (run === undefined) return fallback ? this.#open.at(-1) : undefined;
    while (run !== undefined && !run.open) run = run.parent;
    return run;
  }

  #newTrace(runId: string | undefined): TraceBuilder {
    return new TraceBuilder({
      runId: runId ?? (this.#options.ids?.run ?? hexId(16))(),
      newSpanId: this.#options.ids?.span ?? hexId(8),
      maxSpans: this.#options.maxSpansPerRun ?? 2000,
      sinks: this.#options.sinks,
      onSinkError: () => {
        this.#sinkErrors += 1;
      },
    });
  }

  #finish(trace: TraceBuilder, endedMs: number): void {
    trace.closeAll(endedMs);
    const spans = trace.spans();
    trace.finish({
      summary: summarizeTrace(trace.runId, spans),
      spans,
      droppedSpans: trace.droppedSpans,
    });
  }

  #text(value: unknown): string {
    return traceText(value, this.#redact, this.#maxTextChars);
  }
}

/** A run id the caller chose (`AgentRunOptions.runId`), when it is one we keep: else the tracer makes one. */
function callerRunId(runId: unknown): string | undefined {
  return typeof runId === 'string' && CALLER_RUN_ID.test(runId) ? runId : undefined;
}

const CALLER_RUN_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function lastOpenTool(run: RunState): OpenSpan | undefined {
  let last: OpenSpan | undefined;
  for (const span of run.tools.values()) last = span;
  return last;
}
