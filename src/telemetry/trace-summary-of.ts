import type { TraceRunSummary, TraceSpan } from './trace-types.js';

/** The listed facts of a run from its spans (the first span is the run's agent span). */
export function summarizeTrace(runId: string, spans: readonly TraceSpan[]): TraceRunSummary {
  const root = spans[0];
  if (root === undefined) throw new Error('a trace has at least its agent span');
  const models = spans.filter((span) => span.kind === 'model');
  const turnsAttribute = root.attributes.turns;
  const turns =
    typeof turnsAttribute === 'number'
      ? turnsAttribute
      : spans.filter((span) => span.kind === 'turn' && span.parentSpanId === root.spanId).length;
  const error = root.attributes.error;
  return {
    id: runId,
    startedMs: root.startedMs,
    endedMs: root.endedMs,
    agent: String(root.attributes.agent ?? ''),
    model: String(models[0]?.attributes.model ?? ''),
    inputLength: numberOf(root.attributes.inputLength),
    turns,
    modelCalls: models.length,
    toolCalls: spans.filter((span) => span.kind === 'tool').length,
    promptTokens: sum(models, 'promptTokens'),
    completionTokens: sum(models, 'completionTokens'),
    latencySeconds: Math.max(0, root.endedMs - root.startedMs) / 1000,
    status: root.status === 'ok' ? 'ok' : 'error',
    ...(typeof error === 'string' ? { error } : {}),
  };
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function sum(spans: readonly TraceSpan[], key: string): number {
  return spans.reduce((total, span) => total + numberOf(span.attributes[key]), 0);
}
