import type { EventBus, Redactor } from '../core/index.js';
import { OpenTelemetryTraceSink } from './otel-trace-sink.js';
import { type OtlpExportOptions, startOtlpExport } from './otlp-export.js';
import { RunTracer } from './run-tracer.js';
import type { TelemetryBackend } from './telemetry-backend.js';
import type { TelemetryStore } from './telemetry-store.js';

/** Options of `startRunTracing`. */
export interface RunTracingOptions {
  readonly bus: EventBus;
  /** Where finished runs are stored (omit to keep no traces on disk). */
  readonly store?: Pick<TelemetryStore | TelemetryBackend, 'traceSink'>;
  readonly redact?: Redactor;
  /** Characters kept of each tool argument, result and error. */
  readonly maxTextChars?: number;
  /** Export over OTLP/HTTP with a provider of our own; without it spans go to the global tracer provider. */
  readonly otlp?: Omit<OtlpExportOptions, 'serviceName'>;
}

/** Tracing of every run on a bus: stop it with `close()`, which also sends the spans still buffered. */
export interface RunTracing {
  readonly tracer: RunTracer;
  close(): Promise<void>;
}

/**
 * Traces every run on `bus` into the store and to OpenTelemetry (the global provider, or an OTLP export when
 * `otlp` is given; that needs the optional OpenTelemetry packages and throws a `JarvisError` without them).
 */
export async function startRunTracing(options: RunTracingOptions): Promise<RunTracing> {
  const otlp = options.otlp === undefined ? undefined : await startOtlpExport(options.otlp);
  const tracer = new RunTracer({
    bus: options.bus,
    sinks: [
      ...(options.store === undefined ? [] : [options.store.traceSink()]),
      new OpenTelemetryTraceSink(otlp === undefined ? {} : { tracer: otlp.tracer }),
    ],
    ...(options.redact === undefined ? {} : { redact: options.redact }),
    ...(options.maxTextChars === undefined ? {} : { maxTextChars: options.maxTextChars }),
  });
  return {
    tracer,
    close: async () => {
      tracer.close();
      await otlp?.shutdown();
    },
  };
}
