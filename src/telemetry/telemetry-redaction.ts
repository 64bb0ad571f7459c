import { createRedactor, type Redactor } from '../core/index.js';
import type { FinishedTrace } from './trace-types.js';

/** Core's redaction of secret shapes only (no known values). */
const redactShapes = createRedactor();

/**
 * What a telemetry store applies to every text it keeps: the configured redaction (when given), then core's
 * secret-shape redaction (bearer tokens, `api_key=...`, `sk-...`) in any case.
 */
export function storeRedactor(redact: Redactor | undefined): Redactor {
  return redact === undefined ? redactShapes : (text: string) => redactShapes(redact(text));
}

/** A finished run with its agent, model, error, span names and text attributes passed through `redact`. */
export function redactTrace(trace: FinishedTrace, redact: Redactor): FinishedTrace {
  const text = <T>(value: T): T => (typeof value === 'string' ? (redact(value) as T) : value);
  const { error, ...summary } = trace.summary;
  return {
    ...trace,
    summary: {
      ...summary,
      agent: redact(summary.agent),
      model: redact(summary.model),
      ...(error === undefined ? {} : { error: redact(error) }),
    },
    spans: trace.spans.map((span) => ({
      ...span,
      name: redact(span.name),
      attributes: Object.fromEntries(
        Object.entries(span.attributes).map(([key, value]) => [key, text(value)]),
      ),
    })),
  };
}
