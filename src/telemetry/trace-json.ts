import type { TraceRun, TraceRunSummary, TraceSpanNode } from './trace-types.js';

/** A run summary as JSON with snake_case keys. */
export function runJson(run: TraceRunSummary): Record<string, unknown> {
  return {
    id: run.id,
    started_ms: run.startedMs,
    ended_ms: run.endedMs,
    agent: run.agent,
    model: run.model,
    input_length: run.inputLength,
    turns: run.turns,
    model_calls: run.modelCalls,
    tool_calls: run.toolCalls,
    prompt_tokens: run.promptTokens,
    completion_tokens: run.completionTokens,
    latency_seconds: run.latencySeconds,
    status: run.status,
    ...(run.error === undefined ? {} : { error: run.error }),
  };
}

/** A whole run as JSON: the summary and the span tree. */
export function traceJson(run: TraceRun): Record<string, unknown> {
  const span = (node: TraceSpanNode): Record<string, unknown> => ({
    span_id: node.spanId,
    ...(node.parentSpanId === undefined ? {} : { parent_span_id: node.parentSpanId }),
    kind: node.kind,
    name: node.name,
    started_ms: node.startedMs,
    ended_ms: node.endedMs,
    status: node.status,
    attributes: node.attributes,
    children: node.children.map(span),
  });
  return { ...runJson(run), dropped_spans: run.droppedSpans, spans: run.spans.map(span) };
}
