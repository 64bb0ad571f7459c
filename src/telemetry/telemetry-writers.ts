import type { EventBus } from '../core/index.js';
import type { TelemetryRecord } from './telemetry-record.js';
import type { FinishedTrace, TraceSink } from './trace-types.js';

/**
 * What the telemetry stores share for taking writes from others: the buses they are attached to (each `attach`
 * one subscription to `telemetry_record`, all ended by `detachAll` at close) and a tracer sink; a write that
 * throws never reaches the publisher or the tracer, it goes to `onFailure` (the store counts it).
 */
export class TelemetryWriters {
  readonly #subscriptions = new Set<() => void>();
  readonly #onFailure: (error: unknown) => void;

  constructor(onFailure: (error: unknown) => void) {
    this.#onFailure = onFailure;
  }

  /** Stores every `telemetry_record` published on `bus` with `record`; returns a function that stops it. */
  attach(bus: EventBus, record: (record: TelemetryRecord) => void): () => void {
    const unsubscribe = bus.subscribe('telemetry_record', (event) =>
      this.#guarded(() => record(event.data.record)),
    );
    const detach = (): void => {
      unsubscribe();
      this.#subscriptions.delete(detach);
    };
    this.#subscriptions.add(detach);
    return detach;
  }

  /** A tracer sink that stores every finished run with `recordRun`. */
  traceSink(recordRun: (trace: FinishedTrace) => void): TraceSink {
    return { runEnded: (trace) => this.#guarded(() => recordRun(trace)) };
  }

  /** Ends every subscription `attach` made. */
  detachAll(): void {
    for (const detach of [...this.#subscriptions]) detach();
  }

  #guarded(write: () => void): void {
    try {
      write();
    } catch (error) {
      this.#onFailure(error);
    }
  }
}
