import { createRequire } from 'node:module';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { StartedTraceSpan, TraceSink, TraceSpan } from './trace-types.js';

/** The instrumentation scope name of OpenJarvis spans. */
export const OTEL_SCOPE_NAME = 'openjarvis';

type OtelApi = typeof import('@opentelemetry/api');
let loadedApi: OtelApi | undefined;

/** The OpenTelemetry API, loaded with the first sink: importing the library does not load it (8 MB, 0.2 s). */
function otelApi(): OtelApi {
  loadedApi ??= createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
  return loadedApi;
}

/** Options of an `OpenTelemetryTraceSink`. */
export interface OpenTelemetryTraceSinkOptions {
  /** Where spans go (default: the global tracer provider's `openjarvis` tracer, a no-op until one is set). */
  readonly tracer?: Tracer;
}

/**
 * Hands a tracer's spans to OpenTelemetry as they open and close, with the GenAI semantic conventions
 * (`invoke_agent`, `chat`, `execute_tool`); a run's first span is a child of whatever span is active where the
 * run started, so the host application's traces contain ours.
 */
export class OpenTelemetryTraceSink implements TraceSink {
  readonly #tracer: Tracer;
  readonly #spans = new Map<string, Span>();

  constructor(options: OpenTelemetryTraceSinkOptions = {}) {
    this.#tracer = options.tracer ?? otelApi().trace.getTracer(OTEL_SCOPE_NAME);
  }

  /** Spans started and not yet ended. */
  get openSpans(): number {
    return this.#spans.size;
  }

  spanStarted(span: StartedTraceSpan, runId: string): void {
    const { context, SpanKind, trace } = otelApi();
    const parent = span.parentSpanId === undefined ? undefined : this.#spans.get(span.parentSpanId);
    const parentContext =
      parent === undefined ? context.active() : trace.setSpan(context.active(), parent);
    const otel = this.#tracer.startSpan(
      span.name,
      {
        kind: span.kind === 'model' ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: span.startedMs,
        attributes: { ...startAttributes(span), 'openjarvis.run.id': runId },
      },
      parentContext,
    );
    this.#spans.set(span.spanId, otel);
  }

  spanEnded(span: TraceSpan): void {
    const otel = this.#spans.get(span.spanId);
    if (otel === undefined) return;
    this.#spans.delete(span.spanId);
    otel.setAttributes(endAttributes(span));
    if (span.status !== 'ok') {
      const error = span.attributes.error;
      otel.setStatus({
        code: otelApi().SpanStatusCode.ERROR,
        ...(typeof error === 'string' ? { message: error } : {}),
      });
      otel.setAttribute('error.type', errorType(span));
    }
    otel.end(span.endedMs);
  }
}

function startAttributes(span: StartedTraceSpan): Attributes {
  const a = span.attributes;
  switch (span.kind) {
    case 'agent':
      return {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': String(a.agent),
        'openjarvis.input.length': Number(a.inputLength ?? 0),
      };
    case 'model':
      return {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': String(a.model),
        'gen_ai.provider.name': String(a.engine),
        'openjarvis.engine': String(a.engine),
        'openjarvis.turn': Number(a.turn ?? 0),
      };
    case 'tool':
      return {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': String(a.toolName),
        'gen_ai.tool.call.id': String(a.callId),
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.call.arguments': String(a.arguments ?? ''),
      };
    case 'turn':
      return { 'openjarvis.turn': Number(a.turn ?? 0) };
  }
}

function endAttributes(span: TraceSpan): Attributes {
  const a = span.attributes;
  const out: Attributes = {};
  if (span.kind === 'model') {
    if (typeof a.promptTokens === 'number') out['gen_ai.usage.input_tokens'] = a.promptTokens;
    if (typeof a.completionTokens === 'number')
      out['gen_ai.usage.output_tokens'] = a.completionTokens;
    if (typeof a.finishReason === 'string')
      out['gen_ai.response.finish_reasons'] = [a.finishReason];
    if (typeof a.ttftSeconds === 'number') out['openjarvis.ttft_seconds'] = a.ttftSeconds;
    if (typeof a.costUsd === 'number') out['openjarvis.cost_usd'] = a.costUsd;
  }
  if (span.kind === 'tool' && typeof a.result === 'string')
    out['gen_ai.tool.call.result'] = a.result;
  if (span.kind === 'agent' && typeof a.turns === 'number') out['openjarvis.turns'] = a.turns;
  return out;
}

function errorType(span: TraceSpan): string {
  if (span.status === 'unfinished') return 'unfinished';
  const code = span.attributes.errorCode;
  return typeof code === 'string' && code !== '' ? code : 'error';
}
