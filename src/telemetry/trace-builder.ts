import type {
  FinishedTrace,
  StartedTraceSpan,
  TraceAttributeValue,
  TraceSink,
  TraceSpan,
  TraceSpanKind,
  TraceSpanStatus,
} from './trace-types.js';

/** A span while its run is recorded. */
export interface OpenSpan {
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly kind: TraceSpanKind;
  readonly name: string;
  readonly startedMs: number;
  endedMs: number | undefined;
  status: TraceSpanStatus;
  readonly attributes: Record<string, TraceAttributeValue>;
  /** False for a span beyond the per-run cap: it is tracked but neither kept nor given to sinks. */
  readonly kept: boolean;
}

/** What a new span is. */
export interface SpanStart {
  readonly kind: TraceSpanKind;
  readonly name: string;
  readonly parent: OpenSpan | undefined;
  readonly startedMs: number;
  readonly attributes?: Readonly<Record<string, TraceAttributeValue>>;
}

/** Options of a `TraceBuilder`. */
export interface TraceBuilderOptions {
  readonly runId: string;
  readonly newSpanId: () => string;
  readonly maxSpans: number;
  readonly sinks: readonly TraceSink[];
  /** Called with a sink's error (a sink never breaks recording). */
  readonly onSinkError: (error: unknown) => void;
}

/** The spans of one top-level run (sub-agent runs included), handed to the sinks as they open and close. */
export class TraceBuilder {
  readonly runId: string;
  readonly #spans: OpenSpan[] = [];
  readonly #options: TraceBuilderOptions;
  #dropped = 0;

  constructor(options: TraceBuilderOptions) {
    this.runId = options.runId;
    this.#options = options;
  }

  /** Opens a span (kept unless the run already has `maxSpans`). */
  open(start: SpanStart): OpenSpan {
    const kept = this.#spans.length < this.#options.maxSpans;
    const span: OpenSpan = {
      spanId: this.#options.newSpanId(),
      parentSpanId: start.parent?.spanId,
      kind: start.kind,
      name: start.name,
      startedMs: start.startedMs,
      endedMs: undefined,
      status: 'unfinished',
      attributes: { ...start.attributes },
      kept,
    };
    if (!kept) {
      this.#dropped += 1;
      return span;
    }
    this.#spans.push(span);
    const started = startedView(span);
    this.#notify((sink) => sink.spanStarted?.(started, this.runId));
    return span;
  }

  /** Closes a span once (later calls do nothing); attributes given here are added first. */
  close(
    span: OpenSpan,
    endedMs: number,
    status: TraceSpanStatus,
    attributes: Readonly<Record<string, TraceAttributeValue | undefined>> = {},
  ): void {
    if (span.endedMs !== undefined) return;
    for (const [key, value] of Object.entries(attributes)) {
      if (value !== undefined) span.attributes[key] = value;
    }
    span.endedMs = Math.max(endedMs, span.startedMs);
    span.status = status;
    if (!span.kept) return;
    const ended = spanView(span);
    this.#notify((sink) => sink.spanEnded?.(ended, this.runId));
  }

  /** Closes every span still open at `endedMs` as unfinished. */
  closeAll(endedMs: number): void {
    for (const span of [...this.#spans].reverse()) this.close(span, endedMs, 'unfinished');
  }

  /** The kept spans so far, in start order. */
  spans(): readonly TraceSpan[] {
    return this.#spans.map(spanView);
  }

  /** Spans left out by the per-run cap. */
  get droppedSpans(): number {
    return this.#dropped;
  }

  /** Hands the finished trace to every sink's `runEnded`. */
  finish(trace: FinishedTrace): void {
    this.#notify((sink) => sink.runEnded?.(trace));
  }

  #notify(call: (sink: TraceSink) => void): void {
    for (const sink of this.#options.sinks) {
      try {
        call(sink);
      } catch (error) {
        this.#options.onSinkError(error);
      }
    }
  }
}

function startedView(span: OpenSpan): StartedTraceSpan {
  return {
    spanId: span.spanId,
    ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
    kind: span.kind,
    name: span.name,
    startedMs: span.startedMs,
    attributes: { ...span.attributes },
  };
}

function spanView(span: OpenSpan): TraceSpan {
  return {
    ...startedView(span),
    endedMs: span.endedMs ?? span.startedMs,
    status: span.status,
  };
}
